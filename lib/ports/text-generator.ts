/** What the generator is asked to write. */
export interface GenerationRequest {
  /** The template's instruction: what kind of text to write. */
  instruction: string;
  /** The template's name. */
  templateName: string;
  /** The user's input. */
  prompt: string;
  /** 0 to 1; the sampling temperature. */
  creativity: number;
}

/** Writes the text of a document. */
export interface TextGenerator {
  /**
   * Writes a text. Must stop its I/O when `signal` aborts.
   * @throws DossierError `ERR_GENERATOR_FAILED` (failure or nonsense answer), `ERR_GENERATOR_TIMEOUT`.
   */
  generate(request: GenerationRequest, signal: AbortSignal): Promise<string>;
  /**
   * Writes a text piece by piece, each piece as soon as it is written; the pieces joined are the text.
   * Stops its I/O when `signal` aborts or when the consumer stops iterating. Optional: a generator
   * without it is streamed as one piece, once {@link generate} has answered.
   * @throws DossierError `ERR_GENERATOR_FAILED` (failure, nonsense or a broken-off answer, also after
   *   some pieces), `ERR_GENERATOR_TIMEOUT`; the iteration throws them.
   */
  stream?(request: GenerationRequest, signal: AbortSignal): AsyncIterable<string>;
}
