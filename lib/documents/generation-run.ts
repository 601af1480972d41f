import { DossierError } from '../errors.js';

/**
 * One generation under its deadline and its caller's cancellation. The generator is handed
 * {@link signal}, which aborts at the deadline, when the caller's signal aborts, or at {@link end};
 * {@link race} holds the deadline even for a generator that ignores its signal.
 */
export class GenerationRun {
  private readonly controller = new AbortController();
  /** The timeout error, made only when the deadline passes (an error's stack costs on every generation). */
  private timeout: DossierError | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly stopped: Promise<never>;
  private readonly onCallerAbort: () => void;

  /**
   * Starts the deadline.
   * @param timeoutMs the deadline of the whole generation, in milliseconds.
   * @param caller aborts the generation when it aborts (a client that went away).
   */
  constructor(
    timeoutMs: number,
    private readonly caller?: AbortSignal,
  ) {
    let stop: (reason: unknown) => void = () => {};
    this.stopped = new Promise<never>((_, reject) => {
      stop = reject;
    });
    // Nobody may be racing when it stops; that is not an unhandled rejection.
    this.stopped.catch(() => {});
    this.timer = setTimeout(() => {
      this.timeout = new DossierError(
        'ERR_GENERATOR_TIMEOUT',
        `The text generator did not answer within ${timeoutMs / 1000} seconds.`,
      );
      this.controller.abort(this.timeout);
      stop(this.timeout);
    }, timeoutMs);
    this.onCallerAbort = () => {
      this.controller.abort(caller?.reason);
      stop(caller?.reason);
    };
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** The signal the generator must stop its I/O on. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * `step`, unless the deadline passes or the caller aborts first.
   * @throws what {@link failure} makes of the step's error, the timeout or the caller's abort reason.
   */
  async race<T>(step: Promise<T>): Promise<T> {
    try {
      return await Promise.race([step, this.stopped]);
    } catch (error) {
      throw this.failure(error);
    }
  }

  /**
   * Why the generation failed, given what the generator threw: the caller's abort reason when the
   * caller went away, the timeout past the deadline, a DossierError as it is, anything else as
   * `ERR_GENERATOR_FAILED`.
   */
  failure(error: unknown): unknown {
    if (this.caller?.aborted) return this.caller.reason;
    if (this.timeout !== undefined) return this.timeout;
    if (error instanceof DossierError) return error;
    return new DossierError('ERR_GENERATOR_FAILED', 'The text generator failed.', { cause: error });
  }

  /** Stops the deadline and aborts the generator's signal, so that whatever I/O it still has stops. */
  end(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
    this.controller.abort(generationOver());
  }
}

let over: DossierError | undefined;

/** The reason a finished generation's signal aborts with: one error for every run, made once. */
function generationOver(): DossierError {
  over ??= new DossierError('ERR_GENERATOR_FAILED', 'The generation is over.');
  return over;
}
