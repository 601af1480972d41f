import {
  checkOptions,
  nonEmptyText,
  readBoolean,
  readEnvironment,
  readText,
  readWholeNumber,
  wholeNumber,
  yesNo,
  type Setting,
  type SettingValues,
} from '../../lib/internal.js';

/** The HTTP server's settings (`dossier serve`, `npm start`): the core never reads them. */
export const SERVER_SETTINGS = {
  /** Interface to listen on. @default '127.0.0.1' */
  host: { variable: 'HOST', read: readText, check: nonEmptyText, default: '127.0.0.1' },
  /** Port to listen on; 0 picks a free one. @default 3000 */
  port: { variable: 'PORT', read: readWholeNumber, check: wholeNumber(0, 65535), default: 3000 },
  /**
   * Believe the `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-For` of a reverse proxy in
   * front (Koa's `proxy`): the admin panel then sees the address, scheme and host the browser used (its
   * `Origin` check, `Secure` cookie and per-address sign-in lock-out). Only behind a proxy that sets
   * them: anyone could send them otherwise. The client's address is the last of `X-Forwarded-For`,
   * the one that proxy added. @default false
   */
  trustProxy: { variable: 'DOSSIER_TRUST_PROXY', read: readBoolean, check: yesNo, default: false },
} satisfies Record<string, Setting>;

/** Settings of the HTTP server (`npm start`), read from `HOST`, `PORT` and `DOSSIER_TRUST_PROXY`. */
export type ServerOptions = SettingValues<typeof SERVER_SETTINGS>;

/**
 * Reads `HOST`, `PORT` and `DOSSIER_TRUST_PROXY` for the HTTP server, with the core's checks and messages.
 * @throws DossierError `ERR_CONFIG_INVALID`, naming the variable, when `PORT` is not a port number.
 */
export function serverOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ServerOptions {
  return checkOptions(SERVER_SETTINGS, readEnvironment(SERVER_SETTINGS, env), 'variable');
}
