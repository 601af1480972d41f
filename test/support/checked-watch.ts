import { setTimeout as sleep } from 'node:timers/promises';
import type { Dossier } from '../../lib/dossier.js';

/** How long a first check may take on a busy machine (a worker may have to find the watch first). */
const PATIENCE_MS = 20_000;

/**
 * A dns watch of example.test, owned by `acct`, created on `dossier` and posting to `webhookUrl`, once
 * its first check (the baseline) has been made by whichever process runs the work.
 * @throws Error when the first check has not come within 20 s
 */
export async function checkedWatch(dossier: Dossier, webhookUrl: string): Promise<string> {
  const { watch } = await dossier.watches.create({ type: 'dns', domain: 'example.test', webhookUrl, owner: 'acct' });
  const giveUpAt = performance.now() + PATIENCE_MS;
  while ((await dossier.watches.get(watch.id, { owner: 'acct' })).lastCheckedAt === null) {
    if (performance.now() > giveUpAt) throw new Error(`The first check of ${watch.id} did not come within 20 s.`);
    await sleep(20);
  }
  return watch.id;
}
