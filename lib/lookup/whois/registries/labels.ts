/**
 * The labels registries write for each field, normalized as {@link normalizeLabel} does (lower case,
 * `_` and `-` as spaces, no punctuation). A label may be qualified by the header it sits under
 * (`registrar organization` is `Organization:` under `Registrar`). The generic reader tries these on
 * every answer; a registry profile adds its own words where they are not English or not generic.
 */
export const GENERIC_LABELS = {
  registrar: [
    'registrar organization',
    'registrar organisation',
    'registrar company',
    'sponsoring registrar organization',
    'registrar name',
    'sponsoring registrar',
    'registrar',
    'registrar of record',
    'registration service provider',
    'registration service provided by',
    'authorized agency',
    'current registrar',
    'registrar info',
    'registrar details',
    'registrar technical contacts organization',
    'registrar technical contacts name',
    'registrar handle name',
    'current registar',
    'registar',
  ],
  registrarUrl: [
    'registrar url',
    'registrar website',
    'registrar web',
    'referral url',
    'registrar url registration services',
    'registrar www',
  ],
  registrarIanaId: ['registrar iana id', 'sponsoring registrar iana id', 'registrar id iana'],
  abuseEmail: [
    'registrar abuse contact email',
    'registrar abuse email',
    'abuse contact email',
    'abuse email',
    'registrar abuse contact',
    'abuse contact',
  ],
  created: [
    'creation date',
    'created date',
    'create date',
    'created',
    'created on',
    'created at',
    'domain created',
    'domain create date',
    'domain creation date',
    'domain registration date',
    'domain registered',
    'domain dateregistered',
    'registered',
    'registered on',
    'registered date',
    'registration date',
    'registration time',
    'registration',
    'record created',
    'record created on',
    'domain record activated',
    'activated',
    'first registration date',
    'commencement date',
    'entry created',
    'relevant dates registered on',
    'dates registered',
    'dates created',
    'fecha de registro',
    'fecha de creacion',
    'fecha de alta',
    'data de criacao',
    'data de registo',
    'date approved',
    'date registered',
    'activated on',
    'domain name commencement date',
    'activation',
    'fecha de activacion',
    '登録年月日',
    'date de creation',
    'data de registo',
  ],
  updated: [
    'updated date',
    'updated',
    'updated on',
    'last updated',
    'last updated on',
    'last updated date',
    'last update',
    'last updated at',
    'last modified',
    'last modified date',
    'modified',
    'modified date',
    'modification date',
    'changed',
    'last changed',
    'domain last updated date',
    'domain updated date',
    'domain datelastmodified',
    'record last updated on',
    'domain last updated',
    'record last modified',
    'record last updated',
    'domain record last updated',
    'record modified',
    'relevant dates last updated',
    'dates updated',
    'dates last updated',
    'fecha de ultima actualizacion',
    'ultima actualizacion',
    'data de modificacao',
    'update date',
    'entry updated',
    'record changed on',
    'date updated',
    '最終更新',
  ],
  expires: [
    'registry expiry date',
    'registry expiration date',
    'registrar registration expiration date',
    'expiry date',
    'expiration date',
    'expire date',
    'expires',
    'expires on',
    'expires at',
    'expire',
    'expiry',
    'expired',
    'expiration',
    'expiration time',
    'domain expiration date',
    'domain expiry date',
    'domain expires',
    'domain expire date',
    'record expires on',
    'record expires',
    'renewal date',
    'renewal',
    'paid till',
    'valid until',
    'valid till',
    'validity',
    'exp date',
    'relevant dates expiry date',
    'dates expires',
    'dates expiry date',
    'fecha de expiracion',
    'fecha de vencimiento',
    'data de expiracao',
    'data de validade',
    'date renewal',
    'domain datebilleduntil',
    'record will expire on',
    'billed until',
    'domain currently expires',
    'record expired',
    'valid date',
    '有効期限',
  ],
  nameServers: [
    'name server',
    'name servers',
    'nameserver',
    'nameservers',
    'name server information',
    'name servers information',
    'current nameservers',
    'dns name',
    'nserver',
    'ns',
    'dns',
    'dns servers',
    'dns server',
    'domain servers',
    'domain servers in listed order',
    'domain nameservers',
    'domain name servers',
    'primary server',
    'secondary server',
    'primary name server',
    'secondary name server',
    'servidores de nombre',
    'servidor de nombres',
    'servidor de nombres de dominio',
    'servidores dns',
    'servers',
    'domain server',
    'ns name',
    'ns hostname',
    'nameserver name',
    'name servers in the listed order',
    'name servers in listed order',
    'domain name servers listed in order',
    'domain name servers in listed order',
    'ネームサーバ',
  ],
  // `Flags:` and its block (DNS Belgium) hold the EPP codes.
  status: [
    'domain status',
    'status',
    'state',
    'domain state',
    'registration status',
    'epp status',
    'domain status code',
    'flags',
    '状態',
    'estatus del dominio',
    'estado del dominio',
    'estatus',
    'estado',
  ],
  dnssec: ['dnssec', 'domain dnssec', 'dnssec status', 'signing key', 'ds records'],
  referral: ['registrar whois server', 'registrar whois', 'whois server', 'referralserver'],
  registrantOrganization: [
    'registrant organization',
    'registrant organisation',
    'registrant company',
    'registrant org',
    'owner organization',
    'holder organization',
    'registrant contact organization',
    'registrant contact organisation',
    'organization using domain name organization name',
    'registrant org name',
    'registrant organization name',
    'owner orgname',
    'owner org name',
    'owner organisation',
    'holder organisation',
    'org name',
    '組織名',
    '登録者名',
    'registrant',
    'holder',
    'holder of domain name',
    'titular',
    // Top-level fields of the domain's own object: `org:` (RIPN), `g. [Organization]` (JPRS).
    'org',
    'organization',
    'organisation',
  ],
  registrantCountry: [
    'registrant country',
    'registrant country code',
    'registrant country economy',
    'registrant contact country',
    'registrant contact country code',
    'owner country',
    'owner country code',
    'holder country',
  ],
} as const satisfies Record<string, readonly string[]>;

/** The fields the generic reader reads, each with the labels tried for it, the most telling first. */
export type FieldLabels = Record<keyof typeof GENERIC_LABELS, readonly string[]>;

/**
 * How registries stamp their database's time at the end of an answer (`Last updated on 2014.02.19
 * 00:41:43 MSK`, RIPN): written without a colon, it is not the domain's.
 */
const DATABASE_TIMESTAMP = /^last update(?:d)?(?: on)?$/;

/**
 * Date labels written without a colon (`Record expires on 2011-11-09`): a line that starts with one of
 * these and goes on with a date is read as that field. Only labels of two words or more, so that a
 * sentence of a notice cannot pass for one.
 */
export const UNKEYED_DATE_LABELS: readonly string[] = [
  ...GENERIC_LABELS.created,
  ...GENERIC_LABELS.updated,
  ...GENERIC_LABELS.expires,
]
  .filter((label) => label.includes(' ') && !DATABASE_TIMESTAMP.test(label))
  .sort((a, b) => b.length - a.length);

/** Headers whose entries describe a name server: their host names are the domain's name servers. */
export const NAME_SERVER_SECTION =
  /^(?:(?:\d+\S* )?(?:primary |secondary )?(?:domain )?(?:name ?servers?|nameservers?|nserver|dns(?: servers?)?|domain servers?|servers?)(?: \d+)?(?: information| (?:listed )?in (?:the )?listed order| listed in order)?)$/;

/** Labels, under a name-server header, of an entry that holds a host name. */
export const NAME_SERVER_HOST =
  /^(?:(?:primary|secondary|tertiary|third|fourth|fifth|sixth) )?(?:server )?(?:host ?name|name|server|ns|nserver|dns|fqdn)(?: \d+)?$/;

/** Headers whose entries describe a contact or another object (`nsset`, `keyset`), not the domain: their dates and names are not the domain's. */
export const CONTACT_SECTION =
  /(?:registrant|admin|technical|tech|billing|holder|owner|contact|person|role|nic hdl|zone c|hostmaster|administrator|abuse|reseller|registrar|subscriber|trustee|organi[sz]ation|nsset|keyset|^nserver$)/;

/** Headers of the registrant's (holder's) contact. */
export const REGISTRANT_SECTION =
  /^(?:registrant|holder|owner|titular|domain holder|holder of domain name|registrant contact|registrant contact information|subscriber|organisation|organization)(?: .*)?$/;

/**
 * Under a registrant header or in a contact object: the labels of its organization (`organization-loc`
 * is the Ukrainian registries' local spelling), of its name, and of its country.
 */
export const REGISTRANT_FIELDS = {
  organization: /^(?:organi[sz]ation|org|company|company name|organi[sz]ation name|org name)(?: loc)?$/,
  name: /^(?:name|contact|personname|person|contact name|full name|nombre)(?: loc)?$/,
  country: /^(?:country|country code|country economy|cc|land)$/,
} as const;

/** Fields of the domain's object that name its holder's contact by handle (`holder-c: GIH6-FRNIC`, `registrant: MM12383`). */
export const HOLDER_HANDLE_LABELS: readonly string[] = [
  'registrant',
  'holder',
  'holder c',
  'owner c',
  'registrant c',
  'registrant id',
  'registrant handle',
  'registrant contact id',
  'owner',
];

/** The first field of a contact object, holding its handle (`contact: MM12383`, `nic-hdl: GIH6-FRNIC`, `contact-id:`). */
export const CONTACT_HANDLE = /^(?:contact|nic hdl(?: br)?|contact id|handle|id)$/;

/** A contact's type that says it is an organization (`ORGANIZATION`, `Legal person`, `ORGANISATION`). */
export const ORGANIZATION_TYPE = /^(?:organi[sz]ation|legal(?: person| entity)?|company|corporat|juridical|org\b)/i;

/** Under a registrar header: its name (the organization before a bare name, which may be a handle). */
export const REGISTRAR_FIELDS = {
  organization: /^(?:organi[sz]ation|org|company|organi[sz]ation name|registrar name)$/,
  name: /^(?:name)$/,
  url: /^(?:url|web|website|www|homepage)$/,
  abuseEmail: /^(?:abuse (?:contact )?email|abuse)$/,
} as const;
