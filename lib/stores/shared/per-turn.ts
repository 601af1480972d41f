interface Waiting<I, O> {
  input: I;
  resolve(output: O): void;
  reject(error: unknown): void;
}

/** How {@link perTurn} sends. */
export interface PerTurnOptions {
  /**
   * One send at a time: the calls made while one runs wait for it to end, and go together in the next
   * (for a store whose step holds a lock over several round trips, where many small steps would queue
   * on the lock one after the other). @default false: each turn's send at once, side by side.
   */
  serial?: boolean;
}

/**
 * A call whose calls made during one turn of the event loop go to `send` together at its end (the next
 * `setImmediate` phase): one statement, script call or transaction for many callers. `send` answers
 * each input's output in the inputs' order, and is told when the first of them was asked
 * (`performance.now()`), so that a deadline can count from then; when it fails, every call of the
 * batch fails with its error.
 */
export function perTurn<I, O>(
  send: (inputs: I[], since: number) => Promise<O[]>,
  { serial = false }: PerTurnOptions = {},
): (input: I) => Promise<O> {
  let queue: Waiting<I, O>[] = [];
  let since = 0;
  let sending = false;
  const flush = async (): Promise<void> => {
    const batch = queue;
    queue = [];
    sending = true;
    try {
      const outputs = await send(
        batch.map((entry) => entry.input),
        since,
      );
      batch.forEach((entry, index) => entry.resolve(outputs[index]!));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      sending = false;
      if (serial && queue.length > 0) setImmediate(() => void flush());
    }
  };
  return (input) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      if (queue.length > 1) return;
      since = performance.now();
      if (!serial || !sending) setImmediate(() => void flush());
    });
}
