import type { Dossier } from '../lib/dossier.js';
import { measure, onEachStore, type BenchResult } from './harness.js';

/** Documents of the owner that every listing reads. */
const SEEDED = 10_000;

/** Seeds `SEEDED` documents through the service (not HTTP), 50 at a time; one in 20 is named "… report …". */
async function seed(dossier: Dossier, owner: string): Promise<void> {
  for (let start = 0; start < SEEDED; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, SEEDED - start) }, (_, i) => {
        const n = start + i;
        const name = n % 20 === 0 ? `Quarterly report ${n}` : `Document ${n}`;
        return dossier.documents.create(owner, { name, prompt: `Notes on topic ${n % 97} for the team` });
      }),
    );
  }
}

/**
 * The document paths against the offline generator: create (POST), read by id, and page 1 of an
 * owner holding 10,000 documents, with and without `search`, on the memory store and on SQLite.
 */
export function documentScenarios(): Promise<BenchResult[]> {
  return onEachStore({}, async ({ label, dossier, url }) => {
    const results: BenchResult[] = [];
    const { secret } = await dossier.keys.create({ name: 'bench', owner: 'bench-big' });
    const { secret: writer } = await dossier.keys.create({ name: 'bench-writer', owner: 'bench-writer' });
    await seed(dossier, 'bench-big');
    const headers = { Authorization: `Bearer ${secret}`, Accept: 'application/json' };
    const some = (await dossier.documents.list('bench-big', { per_page: '10' })).data[3]?.id ?? 1;
    results.push(
      await measure(`POST /api/v1/documents, offline generator (store ${label})`, {
        url: `${url}/api/v1/documents`,
        method: 'POST',
        headers: { Authorization: `Bearer ${writer}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'name=Bench&prompt=Write+a+tweet+about+remote+work+for+small+teams&template_id=33&creativity=0.5',
        expectStatus: 201,
      }),
    );
    results.push(
      await measure(`GET /api/v1/documents/{id} (store ${label})`, {
        url: `${url}/api/v1/documents/${some}`,
        headers,
      }),
    );
    results.push(
      await measure(`GET /api/v1/documents page 1 of ${SEEDED} (store ${label})`, {
        url: `${url}/api/v1/documents`,
        headers,
      }),
    );
    results.push(
      await measure(`GET /api/v1/documents?search=report page 1 of ${SEEDED} (store ${label})`, {
        url: `${url}/api/v1/documents?search=report&per_page=25`,
        headers,
      }),
    );
    return results;
  });
}
