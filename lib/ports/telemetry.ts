import type { LookupKind } from './lookup-service.js';

/** How a lookup ended, for counting: `success`, or the lower-cased core error code without `ERR_`. */
export type LookupOutcome = 'success' | Lowercase<string>;

/**
 * Where the core reports what it measures, so that an adapter (Prometheus, OpenTelemetry, a log) can
 * count it without the core knowing of any metrics library. Every method is called on the request's
 * path: an implementation must be quick and must not throw.
 */
export interface Telemetry {
  /** A lookup was answered (or failed) by the lookup service. */
  lookup(kind: LookupKind, cached: boolean, outcome: LookupOutcome): void;
  /** One upstream query (DNS, whois/RDAP, TLS peer) took `seconds`, successful or not. */
  upstream(kind: LookupKind, seconds: number): void;
  /** A lookup was refused because its key had used its daily quota. */
  quotaRejected(): void;
  /** A call to the store or the cache failed (`ERR_STORE_UNAVAILABLE`). */
  storeError(): void;
  /** One text generation took `seconds`; `ok` is false when it failed or timed out. */
  generation(seconds: number, ok: boolean): void;
  /** A watch's check ended: `outcome` is `success` or `failure` (an upstream failure). */
  watchCheck?(type: 'ssl' | 'whois' | 'dns', outcome: 'success' | 'failure'): void;
  /**
   * One attempt of a webhook delivery ended: `delivered` (a 2xx), `retry` (it will be tried again) or
   * `failed` (the last attempt failed).
   */
  webhookDelivery?(outcome: 'delivered' | 'retry' | 'failed'): void;
}
