export { createDossier, type Dossier } from './dossier.js';
export {
  optionsFromEnv,
  resolveOptions,
  serverOptionsFromEnv,
  type CustomTemplateOptions,
  type DossierOptions,
  type OpenAiOptions,
  type ResolvedOptions,
  type ServerOptions,
} from './options.js';
export {
  DossierError,
  DossierRetryableError,
  DossierValidationError,
  ERROR_CODES,
  isDossierError,
  type ErrorCode,
} from './errors.js';
export type { Clock } from './ports/clock.js';
export type { CounterStore, IncrementOptions } from './ports/counter-store.js';
export type { DnsResolver } from './ports/dns-resolver.js';
export type { DnsMessageAnswer, DnsMessageClient, DnsMessageRecord, DnsMessageType } from './ports/dns-message-client.js';
export type { Document, DocumentPage, DocumentService, Template } from './ports/document-service.js';
export type { ApiKey, KeyStore, NewKey, Scope } from './ports/key-store.js';
export { SCOPES } from './keys/keyv-key-store.js';
export type { Logger } from './ports/logger.js';
export {
  type CaaRecord,
  type DmarcPolicy,
  type DnsData,
  type DnssecStatus,
  type MailPolicy,
  type IpData,
  type Lookup,
  type LookupKind,
  type LookupOptions,
  type LookupResult,
  type LookupService,
  type SslData,
  type WhoisData,
} from './ports/lookup-service.js';
export type { QuotaState, QuotaStore } from './ports/quota-store.js';
export type { GenerationRequest, TextGenerator } from './ports/text-generator.js';
export { isPublicAddress } from './lookup/net/target-guard.js';
