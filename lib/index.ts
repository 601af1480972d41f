export { createDossier, type Dossier } from './dossier.js';
export {
  optionsFromEnv,
  resolveOptions,
  type CustomTemplateOptions,
  type DossierOptions,
  type HostPort,
  type LogLevel,
  type OpenAiOptions,
  type ResolvedOptions,
} from './options.js';
export { LOG_LEVELS } from './config/settings.js';
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
export type {
  Document,
  DocumentChanges,
  DocumentListOptions,
  DocumentPage,
  DocumentService,
  DocumentStreamEvent,
  NewDocument,
  Template,
} from './ports/document-service.js';
export type { ApiKey, KeyChanges, KeyStatus, KeyStore, NewKey, Scope } from './ports/key-store.js';
export { SCOPES } from './keys/key-rules.js';
export { keyStatusAt } from './records/stored-key.js';
export type { AdminSessions, SignInVerdict } from './keys/admin-sessions.js';
export type { WorkspaceSessions, WorkspaceSignIn } from './keys/workspace-sessions.js';
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
  LOOKUP_KINDS,
  type LookupResult,
  type LookupService,
  type SslData,
  type WhoisData,
} from './ports/lookup-service.js';
export type { QuotaState, QuotaStore, UsageDay } from './ports/quota-store.js';
export { Metering, type KeyReport, type KeyUsage } from './quota/metering.js';
export type { BatchItemOutcome, BatchItemRequest, BatchOptions, BatchRun, Metered } from './ports/metering.js';
export type { LookupOutcome, Telemetry } from './ports/telemetry.js';
export type { GenerationRequest, TextGenerator } from './ports/text-generator.js';
export { BATCH_MAX_ITEMS, parseBatchRequest } from './quota/batch-request.js';
export { BATCH_CONCURRENCY } from './quota/batch.js';
export { isPublicAddress } from './lookup/net/target-guard.js';
export {
  WATCH_EVENTS,
  WATCH_TYPES,
  type CreatedWatch,
  type Delivery,
  type DeliveryStatus,
  type NewWatch,
  type Watch,
  type WatchEvent,
  type WatchEventType,
  type WatchType,
  type WatchListener,
  type WatchOwner,
  type WatchService,
} from './ports/watches.js';
