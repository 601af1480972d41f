import { createClient } from '@keyv/redis';
import { Queue, createPostgresBackend } from 'bullmq';
import { bullmqPostgresConnection } from '../../lib/watches/jobs/bullmq-jobs.js';

/** A BullMQ queue of a watch engine, opened beside it by a test to look at (or move) its jobs. */
export interface OpenedQueue {
  queue: Queue;
  close(): Promise<void>;
}

/** Opens the queue `name` of the engine on the store `url` (Redis or PostgreSQL). */
export function openQueue(url: string, name: string): OpenedQueue {
  if (url.startsWith('postgres')) {
    const queue = new Queue(name, { connection: bullmqPostgresConnection(url) }, createPostgresBackend) as unknown as Queue;
    return { queue, close: () => queue.close() };
  }
  const client = createClient({ url });
  const queue = new Queue(name, { connection: client });
  return {
    queue,
    async close() {
      await queue.close();
      await client.close().catch(() => {});
    },
  };
}

/** Runs `use` on the queue `name` of the engine on `url`, then closes it. */
export async function withQueue<T>(url: string, name: string, use: (queue: Queue) => Promise<T>): Promise<T> {
  const opened = openQueue(url, name);
  try {
    return await use(opened.queue);
  } finally {
    await opened.close();
  }
}
