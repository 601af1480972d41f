import type { Dossier } from '../../lib/index.js';
import { wireWatch } from '../http/wire.js';

/**
 * `dossier watches list --key KEY_ID [--json]`: the watches the key created, newest first, one line each
 * (id, type, domain, interval, last check, last error), or as a JSON array of docs/contract.md §11 watches.
 * @throws DossierError `ERR_KEY_NOT_FOUND` for an unknown key; `ERR_STORE_UNAVAILABLE`
 */
export async function listWatches(keyId: string, json: boolean, dossier: Dossier, out: (text: string) => void): Promise<void> {
  const key = await dossier.keys.get(keyId);
  const watches = await dossier.watches.ofKey(key.id);
  if (json) {
    out(`${JSON.stringify(watches.map(wireWatch))}\n`);
    return;
  }
  for (const watch of watches) {
    const checked = watch.lastCheckedAt ?? 'never';
    const error = watch.lastError === null ? '' : ` error="${watch.lastError}"`;
    out(`${watch.id} ${watch.type} ${watch.domain} every=${watch.intervalSeconds}s last_check=${checked}${error}\n`);
  }
  if (watches.length === 0) out(`No watches for ${key.id}.\n`);
}

/**
 * `dossier watches remove WATCH_ID`: removes one watch, whatever its owner, as its owner would (no check
 * and no delivery after it).
 * @throws DossierError `ERR_WATCH_NOT_FOUND`; `ERR_STORE_UNAVAILABLE`
 */
export async function removeWatch(id: string, dossier: Dossier, out: (text: string) => void): Promise<void> {
  await dossier.watches.removeAny(id);
  out(`Removed watch ${id}.\n`);
}
