import { parseHostPort, type HostPort } from './lookup/net/host-port.js';
import {
  checkOptions,
  readEnvironment,
  SETTINGS,
  type Checked,
  type LOG_LEVELS,
  type SettingProblem,
  type SettingValues,
} from './config/settings.js';
import type { CustomTemplateOptions } from './documents/templates.js';
import type { OpenAiOptions } from './generators/openai-text-generator.js';
import type { Clock } from './ports/clock.js';
import type { DnsMessageClient } from './ports/dns-message-client.js';
import type { DnsResolver } from './ports/dns-resolver.js';
import type { DocumentService } from './ports/document-service.js';
import type { KeyStore } from './ports/key-store.js';
import { createJsonLinesLogger } from './logging/json-lines.js';
import type { Logger } from './ports/logger.js';
import type { LookupService } from './ports/lookup-service.js';
import type { QuotaStore } from './ports/quota-store.js';
import type { Telemetry } from './ports/telemetry.js';
import type { TextGenerator } from './ports/text-generator.js';

export type { CustomTemplateOptions } from './documents/templates.js';
export type { OpenAiOptions } from './generators/openai-text-generator.js';
export type { HostPort } from './lookup/net/host-port.js';

/** How much the server logs: `debug`, `info`, `warn`, `error` or `silent`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Everything `createDossier` can be told. Each setting has a `DOSSIER_*` environment twin, declared
 * with its schema and default in `config/settings.ts` (see {@link optionsFromEnv}, and the
 * configuration table of docs/configuration.md); a host may also replace any port with its own implementation.
 */
export type DossierOptions = Partial<SettingValues<typeof SETTINGS>> & {
  /** The OpenAI-compatible server, required when `generator` is `'openai'`. @default undefined */
  openai?: OpenAiOptions;
  /**
   * Starts the names of the job queues of watches on a Redis or PostgreSQL store: processes that share
   * a store and this prefix share the work. @default 'dossier', or 'dossier-<schema>' on a PostgreSQL
   *   store whose URL names its schema (`options=-c search_path=<schema>`)
   */
  jobQueuePrefix?: string;
} & DossierPorts;

/** What a host may plug into `createDossier` besides the settings: its own time, logs and ports. */
export interface DossierPorts {
  /** Where the current time comes from (tests inject one). @default Date.now */
  clock?: Clock;
  /**
   * Where diagnostics go, and the adapters' line a request. @default one JSON object a line on standard
   * error, from `logLevel` up (`{"level":"info","time":"…","msg":"request",…}`, as `dossier serve` writes)
   */
  logger?: Logger;
  /** Makes the DNS client of one lookup (benchmarks inject a stub). @default a node:dns Resolver on `dnsServers` */
  createDnsResolver?: () => DnsResolver;
  /** Asks the DNS questions that need the whole message: CAA, DNSKEY, DS, DMARC (benchmarks inject a stub). @default dns-packet over UDP and TCP on `dnsServers` */
  dnsMessageClient?: DnsMessageClient;
  /** Replace the lookup service. @default the built-in one */
  lookups?: LookupService;
  /** Replace the key store. @default KeyvKeyStore on `store` */
  keys?: KeyStore;
  /** Replace the quota store. @default the counter store of `store`'s backend */
  quotas?: QuotaStore;
  /** Replace the document service. @default the built-in one on `store` */
  documents?: DocumentService;
  /** Replace the text generator. @default chosen by `generator` */
  textGenerator?: TextGenerator;
  /** Where the core reports what it measures (lookups, upstream and generator latency, store errors). @default nothing */
  telemetry?: Telemetry;
}

/** {@link DossierOptions} with every default filled in, every value checked, and host:port values parsed. */
export type ResolvedOptions = Checked<typeof SETTINGS, DossierOptions> & {
  /** Where the current time comes from. */
  clock: Clock;
  /** Where diagnostics go. */
  logger: Logger;
  /** `dnsServers`, parsed (port 53 unless given); empty means the system's resolvers. */
  dnsServerAddresses: HostPort[];
  /** `whoisServer`, parsed (port 43 unless given); null when none is set. */
  whoisServerAddress: HostPort | null;
};

export { SILENT_LOGGER } from './logging/json-lines.js';

/** The checks that involve more than one setting: an OpenAI generator needs its server and model. */
function openAiNeeds(options: Record<string, unknown>): SettingProblem[] {
  const openai = options.openai as Partial<OpenAiOptions> | undefined;
  if (options.generator !== 'openai' || options.textGenerator !== undefined) return [];
  return (['baseUrl', 'model'] as const)
    .filter((member) => !openai?.[member])
    .map((member) => ({ path: ['openai', member], message: 'is required when generator is "openai"' }));
}

/**
 * Fills in defaults, checks every value and parses host:port values.
 * @throws DossierError `ERR_CONFIG_INVALID`, naming the option, when a value is out of range.
 */
export function resolveOptions(options: DossierOptions = {}): ResolvedOptions {
  const checked = checkOptions(SETTINGS, options, 'option', openAiNeeds);
  return {
    ...checked,
    clock: options.clock ?? { now: () => Date.now() },
    logger: options.logger ?? createJsonLinesLogger(checked.logLevel),
    // Both were checked just above, so they parse.
    dnsServerAddresses: checked.dnsServers.map((server) => parseHostPort(server, 53)!),
    whoisServerAddress: checked.whoisServer === undefined ? null : parseHostPort(checked.whoisServer, 43)!,
  };
}

/**
 * Reads the `DOSSIER_*` variables of `env` into options (unset variables stay unset, so defaults apply).
 * @throws DossierError `ERR_CONFIG_INVALID`, naming every variable whose value cannot be parsed or is
 *   out of range, at once.
 */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): DossierOptions {
  return readEnvironment(SETTINGS, env, openAiNeeds);
}
