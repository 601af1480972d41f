// A process running its share of the checks and deliveries of watches, as `dossier worker` does, on the
// store of DOSSIER_STORE (and the job queues of WATCH_WORKER_PREFIX): for tests that kill one mid-work.
// It says "ready" on standard output once its workers have started.
import { createDossier, optionsFromEnv } from '../../lib/index.js';

const dossier = createDossier({ ...optionsFromEnv(process.env), jobQueuePrefix: process.env.WATCH_WORKER_PREFIX });
await dossier.startWorkers();
process.stdout.write('ready\n');
// The engines' timers do not hold a process; this does, until the test kills it.
setInterval(() => {}, 2 ** 30);
