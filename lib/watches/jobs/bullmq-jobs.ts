import type { IRedisClient, Job, PostgresPoolConfig, Queue, Worker } from 'bullmq';
import type { Logger } from '../../ports/logger.js';
import type { WatchJobHandlers, WatchJobs } from '../../ports/watch-jobs.js';
import { loadRedisDriver } from '../../stores/redis/backend.js';
import { loadOptionalPeer } from '../../stores/shared/optional-peer.js';
import { DEFAULT_WATCH_CONCURRENCY } from './timer-jobs.js';

/** Settings of {@link BullWatchJobs}. */
export interface BullWatchJobsOptions {
  /** The store's URL: `redis://…`/`rediss://…` (node-redis) or `postgres://…` (BullMQ's PostgreSQL backend). */
  url: string;
  /**
   * Starts the names of the two queues (`<prefix>-watch-checks`, `<prefix>-webhook-deliveries`).
   * @default {@link defaultJobQueuePrefix} of `url`: `dossier`, or `dossier-<schema>` on a PostgreSQL schema of its own
   */
  prefix?: string;
  /** Checks and attempts one process runs at once, per queue (`DOSSIER_WATCH_CONCURRENCY`). @default 32 */
  concurrency?: number;
  logger: Logger;
}

/** The data of a check job: a scheduled one, or the on-demand one of a claim. */
interface CheckData {
  watchId: string;
  claim?: string;
}

/** The data of a delivery job: one job a delivery, moved back to the delayed ones between its attempts. */
interface DeliveryData {
  deliveryId: string;
}

/** The two queues of the engine. */
interface Queues {
  checks: Queue<CheckData>;
  deliveries: Queue<DeliveryData>;
}

/**
 * A check job: a check that failed for want of the store is tried again (a check that found the domain
 * failing did not fail: it counted the failure); a process that dies holding one leaves it to
 * BullMQ's stalled-job check, which runs it again elsewhere.
 */
const CHECK_JOB = { attempts: 3, backoff: { type: 'fixed', delay: 30_000 }, removeOnComplete: true, removeOnFail: 100 };

/**
 * A delivery job: the core says when to look at it again, and the job waits among the delayed ones till
 * then (which BullMQ does not count as a failed attempt). Its own failures (the store down) are tried
 * again every 30 s; one that runs out of tries is removed, and handed on again at the next start.
 */
const DELIVERY_JOB = {
  attempts: 20,
  backoff: { type: 'fixed', delay: 30_000 },
  removeOnComplete: { age: 86_400 },
  removeOnFail: true,
};

/**
 * How the delivery workers hold their jobs: a lock renewed every 7.5 s, and a process that died found
 * within 15 s, so that its attempt is made again by another within a minute; a job may be found so
 * many times before BullMQ gives it up.
 */
const DELIVERY_LOCKS = { lockDuration: 15_000, stalledInterval: 15_000, maxStalledCount: 10 };

/** The PostgreSQL schema of BullMQ's tables, beside Dossier's own. */
const POSTGRES_SCHEMA = 'dossier_jobs';

/**
 * The engine of a shared store (docs/contract.md §11): BullMQ 6, on Redis through node-redis (the client
 * the project already uses) or on PostgreSQL through BullMQ's own PostgreSQL backend. A watch is a job
 * scheduler (`every` its interval, the first job at once), so each check runs once per interval
 * whatever the number of processes; a delivery is one job, moved back among the delayed ones for as
 * long as the core says to wait before its next attempt. Delayed jobs live in the store, so a delivery
 * that fell due while every process was down runs when one starts; closing lets the jobs held finish,
 * and a process that dies leaves its jobs to BullMQ's stalled-job check.
 */
export class BullWatchJobs implements WatchJobs {
  readonly checksRunOnce = true;
  private readonly checkQueueName: string;
  private readonly deliveryQueueName: string;
  private queues: Queues | undefined;
  private readonly bullmq: typeof import('bullmq');
  /** node-redis's client maker, on a Redis store (the driver the store itself uses). */
  private readonly createRedisClient: typeof import('@keyv/redis').createClient | undefined;
  private readonly workers: Worker[] = [];
  private readonly redisClients: { close(): Promise<unknown>; destroy(): void }[] = [];
  private closing: Promise<void> | undefined;
  private handlers: WatchJobHandlers | undefined;

  /**
   * @throws DossierError `ERR_CONFIG_INVALID` with the `npm install` line to run when BullMQ (an optional
   *   peer, needed on a Redis or PostgreSQL store only) is not installed.
   */
  constructor(private readonly options: BullWatchJobsOptions) {
    this.bullmq = loadOptionalPeer<typeof import('bullmq')>('bullmq', 'Watches on a redis:// or postgres:// store');
    this.createRedisClient = this.isPostgres() ? undefined : loadRedisDriver().createClient;
    const prefix = options.prefix ?? defaultJobQueuePrefix(options.url);
    this.checkQueueName = `${prefix}-watch-checks`;
    this.deliveryQueueName = `${prefix}-webhook-deliveries`;
  }

  attach(handlers: WatchJobHandlers): void {
    this.handlers = handlers;
  }

  async start(): Promise<void> {
    const handlers = this.handlers;
    if (handlers === undefined || this.workers.length > 0) return;
    const concurrency = this.options.concurrency ?? DEFAULT_WATCH_CONCURRENCY;
    const { DelayedError } = this.bullmq;
    const checks = this.worker<CheckData>(
      this.checkQueueName,
      async (job) => {
        await handlers.check(job.data.watchId, job.data.claim);
      },
      { concurrency, maxStalledCount: DELIVERY_LOCKS.maxStalledCount },
    );
    const deliveries = this.worker<DeliveryData>(
      this.deliveryQueueName,
      async (job, token) => {
        const wait = await handlers.attempt(job.data.deliveryId);
        if (wait === null) return;
        await job.moveToDelayed(Date.now() + wait, token);
        throw new DelayedError();
      },
      { concurrency, ...DELIVERY_LOCKS },
    );
    await Promise.all([checks.waitUntilReady(), deliveries.waitUntilReady()]);
    // At the default prefix, a check queue with no schedule at all while the store holds watches lost
    // them: a deployment on a PostgreSQL schema of its own upgraded from releases whose queues were
    // `dossier` whatever the schema (now `dossier-<schema>`). Every watch is scheduled again; on a store
    // with none, that is one read of an empty list. A prefix set by hand is the operator's to keep.
    const lost = this.options.prefix === undefined && (await this.open().checks.getJobSchedulersCount()) === 0;
    await handlers.adopt({ everyWatch: lost });
  }

  async schedule(watchId: string, intervalMs: number): Promise<void> {
    await this.open().checks.upsertJobScheduler(
      watchId,
      { every: intervalMs },
      { name: 'check', data: { watchId }, opts: CHECK_JOB },
    );
  }

  async unschedule(watchId: string): Promise<void> {
    await this.open().checks.removeJobScheduler(watchId);
  }

  async checkNow(watchId: string, claim: string): Promise<void> {
    // Made once: one the store kept from being made gives its charge back, and may be asked again.
    await this.open().checks.add('check', { watchId, claim }, { ...CHECK_JOB, attempts: 1 });
  }

  async deliver(deliveryId: string): Promise<void> {
    // The delivery's id: a second add of the same delivery is the same job.
    await this.open().deliveries.add('deliver', { deliveryId }, { jobId: deliveryId, ...DELIVERY_JOB });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // Workers first: each lets the job it holds finish, so nothing is left half-done.
      await Promise.all(this.workers.map((worker) => worker.close()));
      const queues = this.queues;
      if (queues !== undefined) await Promise.all([queues.checks.close(), queues.deliveries.close()]);
      await Promise.all(this.redisClients.map((client) => client.close().catch(() => client.destroy())));
    })();
    return this.closing;
  }

  /** The queues, opened on first use. */
  private open(): Queues {
    this.queues ??= {
      checks: this.queue<CheckData>(this.checkQueueName),
      deliveries: this.queue<DeliveryData>(this.deliveryQueueName),
    };
    return this.queues;
  }

  private queue<T>(name: string): Queue<T> {
    const { Queue, createPostgresBackend } = this.bullmq;
    const queue = this.isPostgres()
      ? (new Queue(
          name,
          { connection: bullmqPostgresConnection(this.options.url) },
          createPostgresBackend,
        ) as unknown as Queue<T>)
      : new Queue<T>(name, { connection: this.redisClient() });
    queue.on('error', (error) => this.options.logger.warn('job queue error', { queue: name, message: error.message }));
    return queue;
  }

  private worker<T>(
    name: string,
    process: (job: Job<T>, token?: string) => Promise<void>,
    options: Record<string, unknown>,
  ): Worker<T> {
    const { Worker, createPostgresBackend } = this.bullmq;
    const worker = this.isPostgres()
      ? (new Worker(
          name,
          process,
          { ...options, connection: bullmqPostgresConnection(this.options.url, { worker: true }) },
          createPostgresBackend,
        ) as unknown as Worker<T>)
      : new Worker<T>(name, process, { ...options, connection: this.redisClient() });
    worker.on('error', (error) => this.options.logger.warn('job worker error', { queue: name, message: error.message }));
    worker.on('failed', (job, error) =>
      this.options.logger.warn('job failed', { queue: name, job: job?.id, message: error.message }),
    );
    this.workers.push(worker as unknown as Worker);
    return worker;
  }

  private isPostgres(): boolean {
    return /^postgres(ql)?:/.test(this.options.url);
  }

  /** A node-redis client of its own for each queue and worker (BullMQ blocks on a worker's). */
  private redisClient(): IRedisClient {
    const client = this.createRedisClient!({ url: this.options.url });
    client.on('error', (error: Error) => this.options.logger.warn('job connection error', { message: error.message }));
    this.redisClients.push(client);
    return this.bullmq.createNodeRedisClient(client);
  }
}

/**
 * BullMQ's PostgreSQL connection for a store URL: its tables in their own schema, created on first use.
 * The URL's `options` (such as `-c search_path=…` for Dossier's own tables) go to the pool config, where
 * BullMQ appends its own search path after them; left in the URL, they would override it, and BullMQ
 * would not find its functions.
 *
 * A worker's connection commits without waiting for the WAL flush (`synchronous_commit=off`). Its
 * transactions take, finish and reschedule jobs, and most of them `NOTIFY`, which PostgreSQL serializes
 * database-wide from the commit's start to its end, flush included (a fifth of the waits sampled at 10,000
 * DNS watches a minute, docs/watches.md). What the setting risks is the last few hundred ms
 * of those transactions on a crash of the database server (never of a Dossier process), and that is what
 * a Dossier process dying holding its jobs already costs: a job back in the queue, run again, which finds
 * its watch's result saved (Dossier's own writes keep waiting for the flush, and each flushes the jobs'
 * writes before it) and so not due. Jobs are added on the queues' connections, which keep the server's
 * setting: the check or delivery a client was answered for is as durable as the rest of the store.
 */
export function bullmqPostgresConnection(storeUrl: string, { worker = false } = {}): PostgresPoolConfig {
  const url = new URL(storeUrl);
  const options = [url.searchParams.get('options'), worker ? '-c synchronous_commit=off' : null].filter((o) => o !== null);
  url.searchParams.delete('options');
  return {
    connectionString: url.href,
    ...(options.length === 0 ? {} : { options: options.join(' ') }),
    schema: POSTGRES_SCHEMA,
    migrate: true,
  };
}

/**
 * The queue prefix of the store at `storeUrl` when none is set: `dossier`, or `dossier-<schema>` on a
 * PostgreSQL store whose URL puts Dossier's tables in a schema of their own (`options=-c search_path=<schema>`,
 * the way one database holds several Dossiers). BullMQ's tables are one schema for the whole database
 * (`dossier_jobs`), so the queue names are what keeps the jobs of each Dossier apart: the processes of one
 * store share its queues, and a Dossier on another schema never takes their jobs (it would find no such
 * watch and unschedule it). The default schema (none named, or `public`) keeps `dossier`, the queues of
 * earlier releases, so a running deployment keeps its jobs. Redis keeps them apart by itself: each store
 * is its own database, and BullMQ's keys are in it.
 */
export function defaultJobQueuePrefix(storeUrl: string): string {
  if (!/^postgres(ql)?:/.test(storeUrl)) return 'dossier';
  const options = new URL(storeUrl).searchParams.get('options') ?? '';
  const schema = /(?:^|\s)(?:-c\s*|--)search_path\s*=\s*("[^"]+"|[^\s,]+)/.exec(options)?.[1]?.replace(/^"|"$/g, '');
  return schema === undefined || schema === 'public' ? 'dossier' : `dossier-${schema}`;
}
