// All of Dossier under /dossier: the API, /dossier/docs, /dossier/admin, /dossier/openapi.json.
import { createDossier, optionsFromEnv } from 'dossier';
import { createRouteHandlers } from 'dossier/fetch';

// Every answer is made per request, never at build time.
export const dynamic = 'force-dynamic';

// The Dossier is made at the first request (next build loads this module without opening a store) and
// kept across next dev's reloads. Configured by the environment: DOSSIER_STORE, DOSSIER_ADMIN_TOKEN, …
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = createRouteHandlers(() => createDossier(optionsFromEnv()), {
  prefix: '/dossier',
});
