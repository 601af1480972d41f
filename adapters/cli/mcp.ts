import { type Dossier, DossierError, isDossierError, optionsFromEnv } from '../../lib/index.js';
import { EXIT, type CliOutput } from './exit.js';
import { loadMcp } from './optional-adapters.js';
import { start, stopSignal } from './process.js';

/**
 * `dossier mcp`: Dossier as an MCP server over stdio (docs/contract.md §13), for an agent's client that
 * starts it (Claude Desktop, Cursor): configured from the environment as `dossier serve` (every
 * `DOSSIER_*` variable, watches' checks and deliveries unless `DOSSIER_WORKERS=false`), the key's secret
 * in `DOSSIER_KEY`, checked before anything is read. Standard output carries JSON-RPC alone; the log goes
 * to standard error. Runs until standard input ends, or SIGINT or SIGTERM.
 * @throws DossierError `ERR_CONFIG_INVALID` naming DOSSIER_KEY when it is missing or no working key
 */
export async function mcp(env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  const http = await loadMcp();
  const options = optionsFromEnv(env);
  const secret = env.DOSSIER_KEY?.trim();
  if (!secret)
    throw new DossierError('ERR_CONFIG_INVALID', 'DOSSIER_KEY is not set: give it the secret of a key (dossier keys create).');
  const { dossier, logger, log } = await start(options, io, http, async (dossier) => {
    await checkKey(dossier, secret);
    if (dossier.options.workers) await dossier.startWorkers();
  });
  const handler = http.createHttpHandler(dossier);
  logger.info('serving MCP over stdio', {});
  const signal = await Promise.race([
    http.serveMcpStdio(handler, secret, process.stdin, process.stdout).then(() => 'end of input'),
    stopSignal(),
  ]);
  logger.info('stopping', { signal });
  await dossier.close();
  logger.info('stopped', {});
  log.close();
  return EXIT.done;
}

/** Checks the key of DOSSIER_KEY. @throws DossierError `ERR_CONFIG_INVALID` naming DOSSIER_KEY when it does not work */
async function checkKey(dossier: Dossier, secret: string): Promise<void> {
  try {
    await dossier.metering.authenticate(secret);
  } catch (error) {
    if (!isDossierError(error, 'ERR_AUTH_INVALID_KEY')) throw error;
    throw new DossierError('ERR_CONFIG_INVALID', `DOSSIER_KEY is not a working key: ${error.message}`, { cause: error });
  }
}
