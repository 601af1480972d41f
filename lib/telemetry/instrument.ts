import { performance } from 'node:perf_hooks';
import { DossierError } from '../errors.js';
import type { Lookup, LookupKind, LookupService } from '../ports/lookup-service.js';
import type { AdmissionStore } from '../ports/admission-store.js';
import type { QuotaStore } from '../ports/quota-store.js';
import type { LookupOutcome, Telemetry } from '../ports/telemetry.js';
import type { TextGenerator } from '../ports/text-generator.js';

/**
 * The one {@link Telemetry} the core reports to: it passes every report on to the observers attached
 * to it (the `telemetry` option, and whatever an adapter attaches later with {@link add}). With no
 * observer, the instrumented ports skip their measuring.
 */
export class TelemetryHub implements Telemetry {
  private readonly observers = new Set<Telemetry>();

  /** True while at least one observer listens. */
  get active(): boolean {
    return this.observers.size > 0;
  }

  /** Attaches an observer; the function returned detaches it. */
  add(observer: Telemetry): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  lookup(kind: LookupKind, cached: boolean, outcome: LookupOutcome): void {
    this.each((o) => o.lookup(kind, cached, outcome));
  }

  upstream(kind: LookupKind, seconds: number): void {
    this.each((o) => o.upstream(kind, seconds));
  }

  quotaRejected(): void {
    this.each((o) => o.quotaRejected());
  }

  storeError(): void {
    this.each((o) => o.storeError());
  }

  generation(seconds: number, ok: boolean): void {
    this.each((o) => o.generation(seconds, ok));
  }

  watchCheck(type: 'ssl' | 'whois' | 'dns', outcome: 'success' | 'failure'): void {
    this.each((o) => o.watchCheck?.(type, outcome));
  }

  webhookDelivery(outcome: 'delivered' | 'retry' | 'failed'): void {
    this.each((o) => o.webhookDelivery?.(outcome));
  }

  private each(report: (observer: Telemetry) => void): void {
    for (const observer of this.observers) {
      try {
        report(observer);
      } catch {
        // A broken observer must not fail the request it measures.
      }
    }
  }
}

/** `ERR_UPSTREAM_TIMEOUT` → `upstream_timeout`; anything that is not a DossierError → `error`. */
export function outcomeOf(error: unknown): LookupOutcome {
  return error instanceof DossierError ? (error.code.slice(4).toLowerCase() as LookupOutcome) : 'error';
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

/** A lookup whose upstream queries ({@link Lookup.run}) are timed. */
export function instrumentLookup<K extends LookupKind>(lookup: Lookup<K>, hub: TelemetryHub): Lookup<K> {
  return {
    kind: lookup.kind,
    parse: (input) => lookup.parse(input),
    async run(target, signal) {
      if (!hub.active) return lookup.run(target, signal);
      const start = performance.now();
      try {
        return await lookup.run(target, signal);
      } finally {
        hub.upstream(lookup.kind, seconds(start));
      }
    },
  };
}

/** A lookup service whose answers are counted by kind, cache hit and outcome. */
export function instrumentLookupService(service: LookupService, hub: TelemetryHub): LookupService {
  return {
    parse: (kind, input) => service.parse(kind, input),
    async lookup(kind, input, options) {
      if (!hub.active) return service.lookup(kind, input, options);
      try {
        const result = await service.lookup(kind, input, options);
        hub.lookup(kind, result.cached, 'success');
        return result;
      } catch (error) {
        hub.lookup(kind, false, outcomeOf(error));
        throw error;
      }
    },
  };
}

/** A quota store that reports each request refused for a spent quota. */
export function instrumentQuotaStore(store: QuotaStore, hub: TelemetryHub): QuotaStore {
  return {
    async consume(keyId, limit, kind) {
      const state = await store.consume(keyId, limit, kind);
      if (!state.allowed) hub.quotaRejected();
      return state;
    },
    peek: (keyId, limit) => store.peek(keyId, limit),
    refund: (keyId, consumed, kind) => store.refund(keyId, consumed, kind),
    history: (keyId, days) => store.history(keyId, days),
  };
}

/** An admission store (the one-step hot path of lookups) that reports each lookup refused for a spent quota. */
export function instrumentAdmissionStore(store: AdmissionStore, hub: TelemetryHub): AdmissionStore {
  return {
    async admit(secret, kind, defaultLimit) {
      const admission = await store.admit(secret, kind, defaultLimit);
      if (admission.status === 'exceeded') hub.quotaRejected();
      return admission;
    },
  };
}

/** A text generator whose generations, whole or streamed, are timed. */
export function instrumentTextGenerator(generator: TextGenerator, hub: TelemetryHub): TextGenerator {
  const instrumented: TextGenerator = {
    async generate(request, signal) {
      const start = performance.now();
      let ok = false;
      try {
        const text = await generator.generate(request, signal);
        ok = true;
        return text;
      } finally {
        hub.generation(seconds(start), ok);
      }
    },
  };
  const stream = generator.stream?.bind(generator);
  if (stream !== undefined) {
    instrumented.stream = async function* (request, signal) {
      const start = performance.now();
      let ok = false;
      try {
        yield* stream(request, signal);
        ok = true;
      } finally {
        hub.generation(seconds(start), ok);
      }
    };
  }
  return instrumented;
}

/**
 * The same store, reporting every call that fails with `ERR_STORE_UNAVAILABLE`. A proxy, so that it
 * fits any store (values, counters) and keeps every method, present and future, of the object it wraps.
 */
export function observeStoreErrors<T extends object>(store: T, hub: TelemetryHub): T {
  const report = (error: unknown): never => {
    if (error instanceof DossierError && error.code === 'ERR_STORE_UNAVAILABLE') hub.storeError();
    throw error;
  };
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        try {
          const result: unknown = Reflect.apply(value, target, args);
          return result instanceof Promise ? result.catch(report) : result;
        } catch (error) {
          return report(error);
        }
      };
    },
  });
}
