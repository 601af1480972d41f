interface Waiting<I, O> {
  input: I;
  resolve(output: O): void;
  reject(error: unknown): void;
}

/**
 * A call whose calls made during one turn of the event loop go to `send` together at its end (the next
 * `setImmediate` phase): one statement, script call or transaction for many callers. `send` answers
 * each input's output in the inputs' order; when it fails, every call of the batch fails with its error.
 */
export function perTurn<I, O>(send: (inputs: I[]) => Promise<O[]>): (input: I) => Promise<O> {
  let queue: Waiting<I, O>[] = [];
  const flush = async (): Promise<void> => {
    const batch = queue;
    queue = [];
    try {
      const outputs = await send(batch.map((entry) => entry.input));
      batch.forEach((entry, index) => entry.resolve(outputs[index]!));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };
  return (input) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      if (queue.length === 1) setImmediate(() => void flush());
    });
}
