// Patterns anchored at a line's start use [ \t], never \s: \s would run on over the following lines
// at every line's start, which makes a long answer of short lines quadratic.

/**
 * How registries word what is not a record: a free name, a refused question, a value withheld. Matched
 * against the whole answer (free, limited) or one value (placeholder); a registry whose words these
 * miss says them in its profile.
 */

/**
 * A name nobody holds, in the words registries use. Only read when the answer holds nothing about a
 * registration, so that a phrase in a registered answer's notices cannot turn it into a free name.
 */
export const NOT_FOUND = new RegExp(
  [
    String.raw`\bnot found\b`,
    String.raw`\bno match(?:es)?\b`,
    String.raw`\bno matching (?:record|domain|entry)`,
    String.raw`\bno (?:data|entries|entry|records?|objects?|results?|information|domain records?)(?: (?:was|were))? (?:found|available)`,
    String.raw`\bno (?:data|entries|entry|records?|objects?|results?) (?:found|matching)\b`,
    String.raw`\bnothing found\b`,
    String.raw`\bno such (?:domain|object)\b`,
    String.raw`\b(?:does|do) not exist\b`,
    String.raw`\bobject does not exist\b`,
    String.raw`\b(?:is |was )?not (?:registered|registred)\b`,
    String.raw`\bhas not been registered\b`,
    String.raw`\bnot known in\b`,
    String.raw`\bno_se_encontro`,
    String.raw`\bwe do not have an entry\b`,
    String.raw`\bdoes not have[\s%]+any data for\b`,
    String.raw`\bis available for (?:purchase|registration)\b`,
    String.raw`^[ \t]*no found\b`,
    String.raw`\bcould not find the requested domain\b`,
    String.raw`\bnot available in our whois database\b`,
    String.raw`\bno information (?:is )?available on\b`,
    String.raw`\bnincs tal`,
    String.raw`\bno existe\b`,
    String.raw`^[ \t]*(?:\S+[ \t]+)?is (?:free|available)\b`,
    String.raw`^[ \t%#]*(?:domain )?status:[ \t]*(?:free|available|not registered|no object found|\d* ?available)\b`,
    String.raw`^[ \t]*(?:available|free)[ \t]*$`,
    String.raw`^query_status: 220\b`,
    // In the registries' other languages: Spanish, Portuguese, French, German, Italian, Dutch, Polish,
    // Russian, Chinese, Japanese, Korean, Turkish.
    String.raw`\bno se encuentra registrad[oa]\b`,
    String.raw`\bno est[aá] registrad[oa]\b`,
    String.raw`\b(?:dominio|nombre de dominio) no (?:registrado|encontrado|existe)\b`,
    String.raw`\bno (?:se encontr[oó]|hay) (?:ningun |ningún )?(?:resultados?|registros?|informaci[oó]n)\b`,
    String.raw`\bn[aã]o (?:encontrad[oa]|registrad[oa]|existe)\b`,
    String.raw`\bnenhum (?:resultado|registro) encontrado\b`,
    String.raw`\baucun(?:e)? (?:r[ée]sultat|objet|donn[ée]e|enregistrement)\b`,
    String.raw`\bn'existe pas\b`,
    String.raw`\b(?:nicht gefunden|keine (?:daten|eintr[aä]ge|treffer)(?: gefunden)?)\b`,
    String.raw`\bnessun (?:risultato|dominio)\b`,
    String.raw`\bniet gevonden\b`,
    String.raw`\bnie znaleziono\b`,
    String.raw`нет данных|не найден|не зарегистрирован`,
    String.raw`没有找到|未找到|无匹配|無匹配|沒有找到`,
    String.raw`該当するデータがありません`,
    String.raw`등록되어 있지 않습니다|검색 결과가 없습니다`,
    String.raw`\bbulunamad[iı]\b`,
    String.raw`\bobject[_ ]not[_ ]found\b`,
    String.raw`\bdomain (?:name )?(?:unknown|not known)\b`,
    String.raw`\bno records? (?:exist|matching)\b`,
    String.raw`\bnot find matchingrecord\b`,
    String.raw`\bno data was found\b`,
    String.raw`\bif you would like to register this\b`,
  ].join('|'),
  'im',
);

/**
 * An answer that refuses or limits the question (docs/contract.md §10): never a free name, never cached. The
 * words are the registries' own: `request limit exceeded`, `WHOIS LIMIT EXCEEDED`, `quota … exceeded`,
 * `too many requests`, `try again later`, `access control limit reached`, `Please go away for 13 Seconds`.
 */
export const LIMITED = new RegExp(
  [
    String.raw`\blimit (?:exceeded|reached)\b`,
    String.raw`\bexceeded (?:your |the )?(?:\w+ )?(?:quota|limit|maximum)`,
    String.raw`\b(?:quota|query limit|rate limit)\b[^\n]{0,60}\b(?:exceeded|reached)\b`,
    String.raw`\bquota exceeded\b`,
    String.raw`\btoo many (?:queries|requests|connections|lookups)\b`,
    String.raw`\btry again later\b`,
    String.raw`\bplease (?:wait a while and )?try again\b`,
    String.raw`\baccess (?:denied|control limit)\b`,
    String.raw`\brequest denied\b`,
    String.raw`\bplease (?:go away|slow down)\b`,
    String.raw`\b\d+ requests? per (?:second|minute)\b`,
    String.raw`\btemporarily (?:unavailable|blocked|denied)\b`,
    String.raw`\bdatabase is (?:currently )?down\b`,
    String.raw`\bserver (?:too )?busy\b`,
    String.raw`\bwait \d+ seconds\b`,
    String.raw`\byour request could not be performed\b`,
    String.raw`^[ \t%]*excessive querying\b`,
    String.raw`\b(?:ip )?address (?:is )?blocked\b`,
  ].join('|'),
  'im',
);

/** A value that stands for one withheld: GDPR redaction, privacy services, "not disclosed". */
export const PLACEHOLDER =
  /^(?:n\/?a|none|null|-+|\.+|not (?:disclosed|available|applicable|shown|assigned)|hidden|private|redacted|withheld|unknown)$|not shown|hidden upon user request|redacted|data protected|not disclosed|gdpr|statutory masking|privacy|withheld|contact privacy|protected by|whoisguard|domains by proxy|identity protect|on behalf of|non-public data|please query the rdds service|select request email form|visible upon request|see privacy|masked|not available from registry/i;

/**
 * A name the registry holds back (reserved, prohibited): not free, and not anyone's registration. Read
 * as held by the registry, with the status `reserved`.
 */
export const RESERVED = new RegExp(
  [
    String.raw`\b(?:name|domain)(?: name)? is (?:reserved|prohibited|blocked)\b`,
    String.raw`\breserved by (?:the )?registry\b`,
    String.raw`^[ \t]*(?:name )?is reserved by \w+`,
    String.raw`\b(?:requested|domain) is prohibited\b`,
    String.raw`\bis not available or is reserved\b`,
    String.raw`^[ \t]*(?:domain )?status:[ \t]*reserved\b`,
    String.raw`^[ \t]*domain not available[ \t]*$`,
    String.raw`\bnot available for second level registration\b`, // .name: a shared name, for third-level names
    String.raw`^[ \t>%#*]*(?:this name is )?(?:registry[ -])?(?:reserved|restricted|blocked|prohibited)(?:[ \t]+(?:by|for|domain|name)\b|[ \t]*[-:.]|[ \t]*$)`,
    String.raw`(?<!rights )\breserved by (?:the )?\w+`,
    String.raw`\bin the reserved list\b`,
    String.raw`\b(?:restricted|reserved|blocked) from registration\b`,
    String.raw`\bis (?:a )?(?:reserved|restricted|blocked|prohibited|withheld|premium)(?: domain| name| word)?\b`,
    String.raw`\bnot available for registration\b`,
    String.raw`^[ \t%#]*(?:domain )?(?:status|state|estado)[ \t]*:[ \t]*(?:reserved|blocked|restricted|prohibited|withheld|not ?allowed|premium|registry[ -]?(?:reserved|hold))\b`,
    String.raw`\bdominio reservado\b|\bdomaine r[ée]serv[ée]\b|\breservierte domain\b`,
  ].join('|'),
  'im',
);
