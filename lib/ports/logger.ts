/** Where diagnostics go. The core never writes to stdout itself. */
export interface Logger {
  /** Something worth knowing happened. */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Something went wrong but was handled. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** Something went wrong and a request failed because of it. */
  error(message: string, fields?: Record<string, unknown>): void;
}
