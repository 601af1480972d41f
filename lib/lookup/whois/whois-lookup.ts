import { performance } from 'node:perf_hooks';
import { DossierError, isDossierError } from '../../errors.js';
import type { Logger } from '../../ports/logger.js';
import type { Lookup, WhoisData } from '../../ports/lookup-service.js';
import { parseDomainName } from '../net/domain-name.js';
import type { LookupContext } from '../net/lookup-context.js';
import { httpGet } from './http-client.js';
import { queryPort43 } from './port43.js';
import { parseRdapAnswer, type RdapDomain } from './rdap.js';
import { IANA_RDAP_BOOTSTRAP_URL, RdapBootstrap } from './rdap-bootstrap.js';
import { completeFacts, emptyFacts, type WhoisFacts } from './record.js';
import { IANA_WHOIS_SERVER, TldWhoisServers } from './tld-servers.js';
import { whoisPeer } from './peer.js';
import { abortError, withTimeout } from '../net/abort.js';
import type { ConnectTarget } from '../net/guarded-connect.js';
import type { HostPort } from '../net/host-port.js';
import { withOwnResolver, type Reach } from '../net/reach.js';
import { readWhoisBytes, whoisQuestion, type WhoisReading } from './whois-text.js';
import { WhoisNames } from './whois-name.js';
import type { ZoneRegistry } from './registries/zones.js';

/** Settings of {@link WhoisLookup}. */
export interface WhoisLookupOptions {
  /** The lookup's deadline in milliseconds, shared among the servers asked. */
  timeoutMs: number;
  /** One whois server asked for every domain (`DOSSIER_WHOIS_SERVER`). @default undefined */
  whoisServer?: HostPort;
  /** Base URL of one RDAP server asked for every domain (`DOSSIER_RDAP_URL`). @default undefined */
  rdapUrl?: string;
  /** The RDAP bootstrap registry for domains; tests point it at a loopback server. @default 'https://data.iana.org/rdap/dns.json' */
  bootstrapUrl?: string;
  /** IANA's whois server, asked for a TLD's whois server; tests point it at a loopback server. @default whois.iana.org, port 43 */
  ianaWhoisServer?: HostPort;
  /** The registry-run second-level zones and their whois servers; tests point them at loopback servers. @default REGISTRY_ZONES */
  registryZones?: readonly ZoneRegistry[];
}

/** How long answers are cached: a registration changes rarely, a free name may be taken any minute. */
export const WHOIS_CACHE_SECONDS = { registered: 3600, unregistered: 300 } as const;

/** The most bytes read from one RDAP answer, and from one whois answer. */
export const WHOIS_MAX_BYTES = { rdap: 1024 * 1024, whois: 256 * 1024 } as const;

/**
 * Shares of the lookup's deadline: RDAP (bootstrap included) must answer within half of it so that
 * whois can still be asked; a referral gets what is left minus a reserve, so that a silent registrar
 * still leaves time to answer with the registry's data.
 */
const BUDGET = { rdap: 0.5, tldServer: 0.25, referral: 0.35, reserve: 0.15 } as const;

const RDAP_ACCEPT = 'application/rdap+json, application/json;q=0.9';

/**
 * `GET /api/whois`. Which servers are asked depends on the configuration:
 *
 * | `rdapUrl` | `whoisServer` | asked, in order |
 * |---|---|---|
 * | unset | unset | RDAP at the server IANA's bootstrap registry names for the TLD, then whois at the server IANA names for it |
 * | set | unset | RDAP at `rdapUrl`, then whois at the server IANA names for the TLD |
 * | set | set | RDAP at `rdapUrl`, then whois at `whoisServer` |
 * | unset | set | whois at `whoisServer` only: no RDAP, no bootstrap download, no question to IANA |
 *
 * whois over port 43 is asked when RDAP has no server for the TLD or fails. A registrar referral (RDAP
 * `related` link, whois `Registrar WHOIS Server:`) completes the registry's data; when it fails the
 * registry's data is answered alone. Subdomains are looked up at their registrable domain
 * ({@link WhoisNames}). A name under a registry-run second-level zone (`bestb.uy.com`) is asked of that
 * zone's whois server (or `whoisServer`), never of IANA's, and of RDAP only at `rdapUrl`: the TLD's RDAP
 * server knows the zone's own registration, not the names under it. Every
 * connection goes to an address resolved by Dossier's resolver and checked (the operator's own servers
 * are trusted), on a port allowed for what the network named (whois: 43 or unprivileged; HTTP: 80, 443
 * or unprivileged), honours the deadline and reads a bounded number of bytes.
 */
export class WhoisLookup implements Lookup<'whois'> {
  readonly kind = 'whois' as const;
  private readonly bootstrap: RdapBootstrap;
  private readonly tldServers: TldWhoisServers;
  private readonly names: WhoisNames;

  constructor(
    private readonly context: LookupContext,
    private readonly options: WhoisLookupOptions,
  ) {
    this.bootstrap = new RdapBootstrap(options.bootstrapUrl ?? IANA_RDAP_BOOTSTRAP_URL, context, options.timeoutMs);
    this.tldServers = new TldWhoisServers(options.ianaWhoisServer ?? { host: IANA_WHOIS_SERVER, port: 43 }, context.clock);
    this.names = new WhoisNames(options.registryZones);
  }

  /**
   * The registrable domain of the query, in punycode (`www.Example.co.uk` gives `example.co.uk`,
   * `www.bestb.uy.com` gives `bestb.uy.com`: see {@link WhoisNames}).
   * @throws DossierError `ERR_LOOKUP_INVALID_DOMAIN`
   */
  parse(input: unknown): string {
    return this.names.of(parseDomainName(input)).domain;
  }

  /**
   * Looks `domain` (a registrable domain from {@link parse}) up; cached for an hour when registered,
   * five minutes when not.
   * @param logger where its warnings go (the asking request's logger) @default the context's
   * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED` (a server found on the network resolves to a
   *   non-public address), `ERR_UPSTREAM_FAILED` (no server answered usefully, an answer over its byte
   *   cap), `ERR_UPSTREAM_TIMEOUT` or the signal's reason when it aborts.
   */
  run(
    domain: string,
    signal: AbortSignal,
    logger: Logger = this.context.logger,
  ): Promise<{ data: WhoisData; ttlSeconds: number }> {
    return withOwnResolver(this.context.createResolver, signal, async (resolver) => {
      const started = performance.now();
      const total = this.options.timeoutMs;
      const step = (share: number): AbortSignal => withTimeout(signal, share * total);
      const reach = (stepSignal: AbortSignal): Reach => ({ resolver, guard: this.context.guard, signal: stepSignal });
      const referralReach = (): Reach | null => {
        const budget = Math.min(BUDGET.referral * total, total * (1 - BUDGET.reserve) - (performance.now() - started));
        return budget >= 1 ? reach(withTimeout(signal, budget)) : null;
      };
      const { zone } = this.names.of(domain);
      const { rdapUrl, whoisServer } = this.options;
      const askRdap = rdapUrl !== undefined || (whoisServer === undefined && zone === null);
      const data =
        (askRdap ? await this.viaRdap(domain, signal, reach(step(BUDGET.rdap)), referralReach, logger) : null) ??
        (await this.viaWhois(domain, zone?.server ?? null, reach(signal), reach(step(BUDGET.tldServer)), referralReach, logger));
      const ttlSeconds = data.registered ? WHOIS_CACHE_SECONDS.registered : WHOIS_CACHE_SECONDS.unregistered;
      return { data, ttlSeconds };
    });
  }

  /** The RDAP answer, or null when whois should be asked instead. */
  private async viaRdap(
    domain: string,
    lookupSignal: AbortSignal,
    registryReach: Reach,
    referralReach: () => Reach | null,
    logger: Logger,
  ): Promise<WhoisData | null> {
    const { rdapUrl } = this.options;
    try {
      let url: string;
      if (rdapUrl !== undefined) {
        url = `${rdapUrl.replace(/\/+$/, '')}/domain/${domain}`;
      } else {
        const base = await this.bootstrap.serverFor(domain, registryReach.signal);
        if (base === null) return null;
        url = new URL(`domain/${domain}`, base).href;
      }
      const { rdap: registry, body } = await askRdap(url, rdapUrl !== undefined, registryReach);
      const raw = body === '' ? null : body;
      if (registry.notFound) return unregistered(domain, 'rdap', null, raw);
      let facts = registry.facts;
      const reach = registry.referral === null ? null : referralReach();
      if (registry.referral !== null && reach !== null) {
        const registrar = await this.rdapReferral(domain, registry.referral, reach, lookupSignal, logger);
        if (registrar !== null) facts = completeFacts(facts, registrar);
      }
      return registered(domain, 'rdap', facts, raw);
    } catch (error) {
      rethrowIfFinal(error, lookupSignal, 'The RDAP server');
      logger.warn('RDAP failed, asking whois', { domain, error: String(error) });
      return null;
    }
  }

  /** The registrar's RDAP facts, or null when its server fails in any way but a refused address. */
  private async rdapReferral(
    domain: string,
    url: string,
    reach: Reach,
    lookupSignal: AbortSignal,
    logger: Logger,
  ): Promise<WhoisFacts | null> {
    try {
      const { rdap: registrar } = await askRdap(url, false, reach);
      return registrar.notFound ? null : registrar.facts;
    } catch (error) {
      return referralFailed(domain, url, error, lookupSignal, logger);
    }
  }

  /** The whois answer: from `whoisServer`, else the zone's server (`zoneServer`), else the TLD's. */
  private async viaWhois(
    domain: string,
    zoneServer: string | null,
    registryReach: Reach,
    tldReach: Reach,
    referralReach: () => Reach | null,
    logger: Logger,
  ): Promise<WhoisData> {
    const configured = this.options.whoisServer;
    let server: HostPort;
    if (configured !== undefined) {
      server = configured;
    } else if (zoneServer !== null) {
      server = whoisPeer(zoneServer);
    } else {
      const tld = domain.slice(domain.lastIndexOf('.') + 1);
      const named = await this.tldServers.serverFor(tld, tldReach);
      if (named === null) throw new DossierError('ERR_UPSTREAM_FAILED', `No whois server is known for .${tld}.`);
      server = whoisPeer(named);
    }
    const { text, reading } = await askWhois(domain, { ...server, trusted: configured !== undefined }, registryReach);
    if (reading.outcome === 'limited') throw limitedError(server.host, reading.words);
    if (reading.outcome === 'free') return unregistered(domain, 'whois', server.host, text);
    if (reading.outcome === 'empty') {
      throw new DossierError('ERR_UPSTREAM_FAILED', `The whois server ${server.host} gave no data about ${domain}.`);
    }
    let facts: WhoisFacts = { ...reading.facts, whoisServer: reading.facts.whoisServer ?? server.host };
    let raw = text;
    const { referral } = reading;
    const reach = referral === null ? null : referralReach();
    if (referral !== null && reach !== null && !isSameServer(referral, server)) {
      const registrar = await this.whoisReferral(domain, referral, reach, registryReach.signal, logger);
      if (registrar !== null) {
        facts = completeFacts(facts, registrar.facts);
        raw = `${text.trimEnd()}\n\n${registrar.text}`;
      }
    }
    return registered(domain, 'whois', facts, raw);
  }

  /** The registrar's whois facts and text, or null when its server fails in any way but a refused address. */
  private async whoisReferral(
    domain: string,
    referral: string,
    reach: Reach,
    lookupSignal: AbortSignal,
    logger: Logger,
  ): Promise<{ facts: WhoisFacts; text: string } | null> {
    try {
      const peer = whoisPeer(referral);
      const { text, reading } = await askWhois(domain, { ...peer, trusted: false }, reach);
      if (reading.outcome !== 'registered') {
        throw new DossierError('ERR_UPSTREAM_FAILED', `The registrar's whois server ${peer.host} gave no data.`);
      }
      return { facts: { ...reading.facts, whoisServer: reading.facts.whoisServer ?? referral }, text };
    } catch (error) {
      return referralFailed(domain, referral, error, lookupSignal, logger);
    }
  }
}

/** A failed referral is dropped (the registry's data stands), unless its address was refused or time ran out. */
function referralFailed(domain: string, referral: string, error: unknown, lookupSignal: AbortSignal, logger: Logger): null {
  rethrowIfFinal(error, lookupSignal, 'The registrar');
  logger.warn('registrar referral failed; answering with the registry data', {
    domain,
    referral,
    error: String(error),
  });
  return null;
}

/** GETs an RDAP answer, up to its byte cap, and reads it. */
async function askRdap(url: string, trusted: boolean, reach: Reach): Promise<{ rdap: RdapDomain; body: string }> {
  const answer = await httpGet({ url, trusted, reach, maxBytes: WHOIS_MAX_BYTES.rdap, accept: RDAP_ACCEPT });
  return { rdap: parseRdapAnswer(answer.status, answer.body, answer.url), body: answer.body };
}

/** Asks a whois server about `domain` in the form it expects, up to the byte cap, and reads its answer. */
async function askWhois(domain: string, server: ConnectTarget, reach: Reach): Promise<{ text: string; reading: WhoisReading }> {
  const answer = await queryPort43({ server, query: whoisQuestion(server.host, domain), maxBytes: WHOIS_MAX_BYTES.whois, reach });
  return readWhoisBytes(domain, answer, server.host);
}

/**
 * Ends the lookup with what no other server can mend: the lookup's own abort (its deadline), or a
 * refused address. Any other failure returns, so that the caller tries the next server.
 * @throws the abort error, or `error` when it is `ERR_LOOKUP_TARGET_NOT_ALLOWED`.
 */
function rethrowIfFinal(error: unknown, lookupSignal: AbortSignal, what: string): void {
  if (lookupSignal.aborted) throw abortError(lookupSignal, what);
  if (isDossierError(error, 'ERR_LOOKUP_TARGET_NOT_ALLOWED')) throw error;
}

function isSameServer(named: string, server: HostPort): boolean {
  return named === server.host.toLowerCase() || named === `${server.host.toLowerCase()}:${server.port}`;
}

/**
 * A registry's refusal or limit (docs/contract.md §10): a 502 that says so, never cached (the lookup fails) and
 * never read as a free name.
 */
function limitedError(host: string, words: string): DossierError {
  const quoted = words.length > 120 ? `${words.slice(0, 117)}...` : words;
  return new DossierError('ERR_UPSTREAM_FAILED', `The whois server ${host} limited the question ("${quoted}"); try again later.`);
}

function registered(domain: string, source: WhoisData['source'], facts: WhoisFacts, raw: string | null): WhoisData {
  return { domain, registered: true, ...facts, source, raw };
}

function unregistered(domain: string, source: WhoisData['source'], whoisServer: string | null, raw: string | null): WhoisData {
  return { domain, registered: false, ...emptyFacts(), whoisServer, source, raw };
}
