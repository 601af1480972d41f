import { createContainer } from '../../lib/container.js';
import { resolveOptions } from '../../lib/options.js';
import { TOKENS } from '../../lib/tokens.js';
import type { StoredWatch } from '../../lib/watches/keyv-watch-store.js';
import type { WatchStore } from '../../lib/ports/watch-store.js';
import { watchStoreOf } from '../../lib/watches/create-watch-service.js';

/** The watch store of a store URL, as a process on it sees it, for a test to look into or to move time in. */
export interface OpenedWatchStore {
  store: WatchStore<StoredWatch>;
  /** Makes a pending delivery due now, as if its pause had passed. */
  fallDue(deliveryId: string): Promise<void>;
  /** Makes a watch's next scheduled check due now, as if its interval had passed. */
  checkDue(watchId: string): Promise<void>;
  close(): Promise<void>;
}

/** Opens the watch store of `url` beside the processes that use it. */
export function openWatchStore(url: string): OpenedWatchStore {
  const { container, close } = createContainer(resolveOptions({ store: url }));
  const store = watchStoreOf(
    container.resolve(TOKENS.storeBackend),
    container.resolve(TOKENS.storeKv),
    container.resolve(TOKENS.storeCounters),
  );
  return {
    store,
    async fallDue(deliveryId) {
      const delivery = await store.getDelivery(deliveryId);
      if (delivery === undefined) throw new Error(`No delivery ${deliveryId}.`);
      await store.saveDelivery({ ...delivery, nextAttemptAt: new Date().toISOString() });
    },
    async checkDue(watchId) {
      const watch = await store.get(watchId);
      if (watch === undefined) throw new Error(`No watch ${watchId}.`);
      await store.save({ ...watch, nextCheckAt: new Date().toISOString() });
    },
    close,
  };
}
