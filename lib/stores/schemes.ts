/**
 * The URL schemes of stores (`DOSSIER_STORE`, `DOSSIER_CACHE`), by backend: the one list that the
 * configuration checks, `openBackend` opens and the watches pick their job engine from.
 */
export const STORE_SCHEMES = {
  'memory:': { backend: 'memory', jobs: 'timers' },
  'sqlite:': { backend: 'sqlite', jobs: 'timers' },
  'redis:': { backend: 'redis', jobs: 'bullmq' },
  'rediss:': { backend: 'redis', jobs: 'bullmq' },
  'postgres:': { backend: 'postgres', jobs: 'bullmq' },
  'postgresql:': { backend: 'postgres', jobs: 'bullmq' },
  'mysql:': { backend: 'mysql', jobs: 'timers' },
  'mariadb:': { backend: 'mysql', jobs: 'timers' },
} as const satisfies Record<string, { backend: string; jobs: 'timers' | 'bullmq' }>;

/** A store URL's scheme, as `URL.protocol` writes it (`sqlite:`). */
export type StoreScheme = keyof typeof STORE_SCHEMES;

/** A backend, by the name of its folder in lib/stores. */
export type BackendName = (typeof STORE_SCHEMES)[StoreScheme]['backend'];

/** The scheme of a store URL that the configuration checked, or `undefined` for another one. */
export function storeScheme(url: string): StoreScheme | undefined {
  const protocol = URL.parse(url)?.protocol;
  return protocol !== undefined && Object.hasOwn(STORE_SCHEMES, protocol) ? (protocol as StoreScheme) : undefined;
}
