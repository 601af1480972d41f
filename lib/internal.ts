// What Dossier's own adapters (adapters/koa, adapters/cli) use beyond the public surface of index.ts:
// the rules and bounds they show or apply as the core does, so that the OpenAPI document, the admin
// API and the core read one declaration. Not part of the package's exports (package.json names only
// index.ts and the Koa adapter): an embedder's code uses index.ts, which is kept stable.

export { checkKeyBody, checkUsageDays, requireScope } from './keys/key-rules.js';
export { listKeys, type KeyListQuery, type KeyListPage } from './keys/key-listing.js';
export { SILENT_LOGGER } from './options.js';
export { redact } from './dossier.js';
// The HTTP API's request schemas that the core validates with (snake_case, as the wire has them).
export { AdminKeyCreate, AdminKeyRoll, AdminKeyUpdate, AdminUsageQuery, KeyScope } from './schemas/keys.js';
export { BatchRequest } from './schemas/batch.js';
export { WatchCreate } from './schemas/watches.js';
export {
  CREATIVITY_VALUES,
  DocumentName,
  DocumentPrompt,
  DocumentResult,
  literals,
  PAGE_MAX,
  PER_PAGE_VALUES,
  SEARCH_FIELDS,
  SORT_FIELDS,
  SORT_ORDERS,
} from './schemas/documents.js';
export { TEMPLATE_ID_MAX, TEMPLATE_ID_MIN } from './documents/templates.js';
// The word count, whose source the documents workspace serves to the browser.
export { countWords } from './documents/word-count.js';
export { compiledSchema, fieldProblems } from './schemas/ajv.js';
export { DOCUMENT_MESSAGES } from './documents/validation.js';
export { checkLaravel, defaultOf, laravelSentence, type LaravelRules } from './schemas/laravel.js';
// The settings' table, readers and checks, for the server's own settings (HOST, PORT, DOSSIER_TRUST_PROXY),
// which the Koa adapter declares as the core declares its own.
export { checkOptions, readEnvironment, type Setting, type SettingValues } from './config/settings.js';
export { nonEmptyText, readBoolean, readText, readWholeNumber, wholeNumber, yesNo } from './config/checks.js';
