import type { Registry } from 'prom-client';
import type { Telemetry } from '../../lib/index.js';
import { requirePeer } from './peers.js';

/** Prometheus metrics of one app (docs/contract.md §7), in a registry of their own. */
export interface DossierMetrics {
  /** The registry `/metrics` exposes (Dossier's metrics and Node's process metrics). */
  readonly registry: Registry;
  /** What the core measures, counted here (attach it with `dossier.observe`). */
  readonly observer: Telemetry;
  /** Counts one answered request; `route` is its pattern, never the raw path. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** Counts one call of an MCP tool (docs/contract.md §13) by its outcome: `success`, `refused` (4xx) or `failed` (5xx). */
  toolCall(tool: string, outcome: 'success' | 'refused' | 'failed'): void;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const GENERATOR_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

/**
 * Builds the metrics of docs/contract.md §7. Every label value is bounded: a route pattern (or `unmatched`),
 * an HTTP method and status, a lookup kind, a core error code; never a raw path, a domain or a key.
 * @throws DossierError `ERR_CONFIG_INVALID` when prom-client, a peer dependency, is not installed.
 */
export function createMetrics(): DossierMetrics {
  const { Counter, Histogram, Registry, collectDefaultMetrics } = requirePeer<typeof import('prom-client')>('prom-client');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'dossier_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'dossier_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern.',
    labelNames: ['route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const lookups = new Counter({
    name: 'dossier_lookups_total',
    help: 'Lookups answered by the lookup service, by kind, cache hit and outcome (success or the error code).',
    labelNames: ['kind', 'cached', 'outcome'] as const,
    registers: [registry],
  });
  const upstream = new Histogram({
    name: 'dossier_upstream_duration_seconds',
    help: 'Time of one upstream query (DNS, whois/RDAP, TLS peer), by lookup kind.',
    labelNames: ['kind'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const quotaRejections = new Counter({
    name: 'dossier_quota_rejections_total',
    help: 'Lookups refused because the key had used its daily quota.',
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'dossier_store_errors_total',
    help: 'Calls to the store or the cache that failed.',
    registers: [registry],
  });
  const generator = new Histogram({
    name: 'dossier_generator_duration_seconds',
    help: 'Time of one text generation.',
    buckets: GENERATOR_BUCKETS,
    registers: [registry],
  });
  const watchChecks = new Counter({
    name: 'dossier_watch_checks_total',
    help: 'Checks of watches, by watch type and outcome (success, failure).',
    labelNames: ['type', 'outcome'],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'dossier_webhook_deliveries_total',
    help: 'Attempts of webhook deliveries, by outcome (delivered, retry, failed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: 'dossier_mcp_tool_calls_total',
    help: "Calls of MCP tools, by tool and outcome (success, refused: the route's 4xx, failed: its 5xx).",
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  return {
    registry,
    observer: {
      lookup: (kind, cached, outcome) => lookups.inc({ kind, cached: String(cached), outcome }),
      upstream: (kind, seconds) => upstream.observe({ kind }, seconds),
      quotaRejected: () => quotaRejections.inc(),
      storeError: () => storeErrors.inc(),
      generation: (seconds) => generator.observe(seconds),
      watchCheck: (type, outcome) => watchChecks.inc({ type, outcome }),
      webhookDelivery: (outcome) => deliveries.inc({ outcome }),
    },
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      durations.observe({ route }, seconds);
    },
    toolCall(tool, outcome) {
      toolCalls.inc({ tool, outcome });
    },
  };
}
