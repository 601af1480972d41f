import { FRESH_MEMORY } from '../../lib/watches/detect/detection.js';
import type { StoredWatch } from '../../lib/watches/keyv-watch-store.js';

// Watches as the stores keep them, for tests and benches to write (no container, nothing else loaded).

/** A DNS watch as the store keeps it, due now, with no webhook: `fields` change what a test needs. */
export function storedWatch(id: string, fields: Partial<StoredWatch> = {}): StoredWatch {
  const at = new Date().toISOString();
  return {
    id,
    type: 'dns',
    domain: 'example.test',
    webhookUrl: null,
    intervalSeconds: 3600,
    createdAt: at,
    lastCheckedAt: null,
    nextCheckAt: at,
    lastError: null,
    keyId: 'acct',
    owner: 'acct',
    secret: 'whsec_c2VjcmV0',
    memory: FRESH_MEMORY,
    ...fields,
  };
}

/**
 * Watch `n` of many: a DNS watch of `d<n>.example.test` every 15 minutes, with a webhook, made and due at
 * second `n` after `start` (ms since the epoch); `fields` (its key, its owner) change what a caller needs.
 */
export function numberedWatch(id: string, n: number, start: number, fields: Partial<StoredWatch> = {}): StoredWatch {
  const at = new Date(start + n * 1000).toISOString();
  return storedWatch(id, {
    domain: `d${n}.example.test`,
    webhookUrl: 'https://hooks.example.test/in',
    intervalSeconds: 900,
    createdAt: at,
    nextCheckAt: at,
    ...fields,
  });
}
