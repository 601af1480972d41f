import type { Server } from 'node:http';
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
  /**
   * How long an idle kept-alive connection stays open, in milliseconds. Longer than clients and load
   * balancers keep theirs (AWS ALB: 60 s; Node's fetch: 4 s), so that the client, not the server, closes
   * an idle connection: a server that closes first races the client reusing it, and that request is
   * lost (`other side closed`). Node's own default is 5 s. @default 72000
   */
  keepAliveTimeoutMs: {
    variable: 'DOSSIER_KEEP_ALIVE_TIMEOUT_MS',
    read: readWholeNumber,
    check: wholeNumber(1, 3_600_000),
    default: 72_000,
  },
} satisfies Record<string, Setting>;

/** Settings of the HTTP server (`npm start`), read from `HOST`, `PORT`, `DOSSIER_TRUST_PROXY` and `DOSSIER_KEEP_ALIVE_TIMEOUT_MS`. */
export type ServerOptions = SettingValues<typeof SERVER_SETTINGS>;

/**
 * Reads `HOST`, `PORT`, `DOSSIER_TRUST_PROXY` and `DOSSIER_KEEP_ALIVE_TIMEOUT_MS` for the HTTP server,
 * with the core's checks and messages.
 * @throws DossierError `ERR_CONFIG_INVALID`, naming the variable, for a value out of its range.
 */
export function serverOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ServerOptions {
  return checkOptions(SERVER_SETTINGS, readEnvironment(SERVER_SETTINGS, env), 'variable');
}

/**
 * Gives `server` the idle keep-alive timeout of `options`, with the headers timeout above it (Node
 * before 18 counted a connection's idle time against it, and guides for load balancers still ask for
 * it), and the request timeout at least as long as the headers timeout, which Node requires.
 */
export function applyKeepAlive(server: Server, { keepAliveTimeoutMs }: Pick<ServerOptions, 'keepAliveTimeoutMs'>): void {
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.headersTimeout = Math.max(server.headersTimeout, keepAliveTimeoutMs + 1000);
  if (server.requestTimeout > 0) server.requestTimeout = Math.max(server.requestTimeout, server.headersTimeout);
}
