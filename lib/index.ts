export { createDossier, type Dossier } from './dossier.js';
export {
  optionsFromEnv,
  resolveOptions,
  serverOptionsFromEnv,
  LOG_LEVELS,
  type CustomTemplateOptions,
  type DossierOptions,
  type LogLevel,
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
export type { Document, DocumentPage, DocumentService, Template } from './ports/document-service.js';
export type { ApiKey, KeyStore, NewKey, Scope } from './ports/key-store.js';
export { SCOPES } from './keys/keyv-key-store.js';
export type { Logger } from './ports/logger.js';
export {
  type DnsData,
  type IpData,
  type Lookup,
  type LookupKind,
  type LookupResult,
  type LookupService,
  type SslData,
  type WhoisData,
} from './ports/lookup-service.js';
export type { QuotaState, QuotaStore } from './ports/quota-store.js';
export type { LookupOutcome, Telemetry } from './ports/telemetry.js';
export type { GenerationRequest, TextGenerator } from './ports/text-generator.js';
export { isPublicAddress } from './lookup/target-guard.js';
