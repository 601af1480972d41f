/** Where the current time comes from; tests inject one to cross midnight without waiting. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}
