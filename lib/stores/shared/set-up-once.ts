/**
 * A store's set-up (its tables made, what older releases wrote moved), run once and shared by every call
 * that comes while it runs; one that failed is tried again by the next call. `done` lets the calls after
 * it go on without waiting.
 */
export class SetUpOnce {
  private state: Promise<void> | true | undefined;

  constructor(private readonly work: () => Promise<void>) {}

  /** True once the set-up has ended well. */
  get done(): boolean {
    return this.state === true;
  }

  /** Resolves once the set-up has ended well (running it, or waiting for the run under way). */
  run(): Promise<void> {
    if (this.state === true) return Promise.resolve();
    this.state ??= this.work().then(
      () => void (this.state = true),
      (error: unknown) => {
        this.state = undefined;
        throw error;
      },
    );
    return this.state;
  }
}
