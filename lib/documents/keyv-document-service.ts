import { DossierError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { Document, DocumentPage, DocumentService, DocumentStreamEvent, Template } from '../ports/document-service.js';
import type { GenerationRequest, TextGenerator } from '../ports/text-generator.js';
import type { KvStore } from '../ports/kv-store.js';
import { withLease } from '../stores/shared/lease.js';
import { GenerationRun } from './generation-run.js';
import { ListingCache, type ListingCacheOptions } from './listing-cache.js';
import { documentKey, isStoredDocumentOf, toDocument, type StoredDocument } from './stored-document.js';
import { StreamedText } from './streamed-text.js';
import { parseCreateInput, parseDocumentId, parseListQuery, parseUpdateInput, type CreateInput } from './validation.js';
import { RESULT_MAX } from '../schemas/documents.js';
import { countWords } from './word-count.js';

/** What a {@link KeyvDocumentService} works with. */
export interface KeyvDocumentServiceOptions {
  kv: KvStore;
  counters: CounterStore;
  generator: TextGenerator;
  clock: Clock;
  /** Every template by id, 1 to 72. */
  templates: Map<number, Template>;
  /** Deadline of one generation, in milliseconds. */
  generatorTimeoutMs: number;
  /** Limits of the in-process listing cache. */
  cache?: ListingCacheOptions;
}

/** The counter that hands out document ids, shared by every process on the store. */
const ID_COUNTER = 'documents:id';

/** What an owner's index slot holds when its create failed: an id no document has (ids start at 1). */
const NO_DOCUMENT = '0';

/**
 * Documents in the Keyv store (`doc:<id>`), with ids from an atomic counter, a per-owner index of ids
 * and a per-owner listing cache checked against a version counter (see {@link ListingCache}).
 */
export class KeyvDocumentService implements DocumentService {
  private readonly cache: ListingCache;
  private readonly templateList: Template[];
  /** Writes to one document queued in this process, so that they do not contend for its lease. */
  private readonly writing = new Map<number, Promise<unknown>>();

  constructor(private readonly options: KeyvDocumentServiceOptions) {
    this.cache = new ListingCache(options.kv, options.counters, options.cache);
    this.templateList = [...options.templates.values()].sort((a, b) => a.id - b.id);
  }

  async list(owner: string, query: Record<string, unknown>): Promise<DocumentPage> {
    const parsed = parseListQuery(query);
    const listing = await this.cache.listing(owner);
    const { docs, total } = listing.page(parsed);
    const from = docs.length === 0 ? null : (parsed.page - 1) * parsed.perPage + 1;
    return {
      data: docs.map((doc) => toDocument(doc, this.options.templates)),
      filters: parsed.filters,
      current_page: parsed.page,
      per_page: parsed.perPage,
      last_page: Math.max(1, Math.ceil(total / parsed.perPage)),
      from,
      to: from === null ? null : from + docs.length - 1,
      total,
    };
  }

  async get(owner: string, id: string): Promise<Document> {
    return toDocument(await this.read(owner, id), this.options.templates);
  }

  async create(owner: string, input: Record<string, unknown>): Promise<Document> {
    const { fields, template } = this.parseCreate(input);
    // Generate first: a failed generation stores nothing and takes no id.
    const result = await this.generate(generationRequest(fields, template));
    return this.store(owner, fields, template, result);
  }

  async createStream(
    owner: string,
    input: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<DocumentStreamEvent>> {
    const { fields, template } = this.parseCreate(input);
    return this.streamDocument(owner, fields, template, signal);
  }

  async update(owner: string, id: string, input: Record<string, unknown>): Promise<Document> {
    const current = await this.read(owner, id);
    const changes = parseUpdateInput(input);
    return this.serialized(current.id, async () => {
      const latest = await this.read(owner, id);
      if (Object.keys(changes).length === 0) return toDocument(latest, this.options.templates);
      const next: StoredDocument = {
        ...latest,
        ...changes,
        words: changes.result === undefined ? latest.words : countWords(changes.result),
        updated_at: new Date(this.options.clock.now()).toISOString(),
      };
      await this.options.kv.set(documentKey(next.id), next);
      await this.cache.written(owner, { put: next });
      return toDocument(next, this.options.templates);
    });
  }

  async delete(owner: string, id: string): Promise<number> {
    const current = await this.read(owner, id);
    return this.serialized(current.id, async () => {
      await this.read(owner, id);
      await this.options.kv.delete(documentKey(current.id));
      await this.cache.written(owner, { remove: current.id });
      return current.id;
    });
  }

  templates(): Template[] {
    return this.templateList.map((template) => ({ ...template }));
  }

  /** The owner's document `id`; any other id, owner or form is "not found". */
  private async read(owner: string, rawId: string): Promise<StoredDocument> {
    const id = parseDocumentId(rawId);
    const stored = id === undefined ? undefined : await this.options.kv.get<unknown>(documentKey(id));
    if (!isStoredDocumentOf(stored, owner)) throw new DossierError('ERR_DOCUMENT_NOT_FOUND', 'Resource not found.');
    return stored;
  }

  /** The valid fields of a creation and their template. */
  private parseCreate(input: Record<string, unknown>): { fields: CreateInput; template: Template } {
    const fields = parseCreateInput(input);
    const template = this.options.templates.get(fields.templateId);
    if (template === undefined) throw new DossierError('ERR_DOCUMENT_INVALID', 'The template does not exist.');
    return { fields, template };
  }

  /** Stores a new document with a fresh id and the generated `result`. */
  private async store(owner: string, fields: CreateInput, template: Template, result: string): Promise<Document> {
    // The id and the owner's index slot at once (neither depends on the other): a create waits for
    // three round trips of the store instead of five.
    const index = this.cache.index(owner);
    const [taken, reserved] = await Promise.allSettled([this.options.counters.increment(ID_COUNTER), index.reserve()]);
    if (taken.status === 'rejected' || taken.value === null) {
      // A slot left empty would hold back every reader of the index: it gets an id no document has.
      if (reserved.status === 'fulfilled') await index.fill(reserved.value, NO_DOCUMENT).catch(() => {});
      if (taken.status === 'rejected') throw taken.reason;
      throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store did not hand out a document id.');
    }
    if (reserved.status === 'rejected') throw reserved.reason;
    const id = taken.value;
    const now = new Date(this.options.clock.now()).toISOString();
    const doc: StoredDocument = {
      id,
      owner,
      name: fields.name,
      template_id: template.id,
      prompt: fields.prompt,
      creativity: fields.creativity,
      result,
      words: countWords(result),
      favorite: false,
      created_at: now,
      updated_at: now,
    };
    // The document and its index entry together: a listing that reads the index before the document is
    // written skips the id, and is replaced at once, since the owner's version moves only after both.
    await Promise.all([this.options.kv.set(documentKey(id), doc), index.fill(reserved.value, String(id))]);
    await this.cache.written(owner, { put: doc });
    return toDocument(doc, this.options.templates);
  }

  /** Runs the generator under the deadline: its answer, trimmed and capped, or the reason it failed. */
  private async generate(request: GenerationRequest): Promise<string> {
    const run = new GenerationRun(this.options.generatorTimeoutMs);
    let text: string;
    try {
      text = await run.race(this.options.generator.generate(request, run.signal));
    } finally {
      run.end();
    }
    const trimmed = typeof text === 'string' ? text.trim() : '';
    if (trimmed === '') throw noText();
    return capCharacters(trimmed, RESULT_MAX);
  }

  /**
   * The streamed creation: each piece passed on as it comes (trimmed and capped as {@link generate}
   * does, so that the pieces joined are the stored result), then the stored document. Generation
   * fails, and nothing is stored, when the deadline passes, `signal` aborts or the consumer stops.
   */
  private async *streamDocument(
    owner: string,
    fields: CreateInput,
    template: Template,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<DocumentStreamEvent> {
    const run = new GenerationRun(this.options.generatorTimeoutMs, signal);
    const text = new StreamedText(RESULT_MAX);
    const pieces = this.pieces(generationRequest(fields, template), run.signal)[Symbol.asyncIterator]();
    let finished = false;
    try {
      while (!text.full) {
        const step = await run.race(pieces.next());
        if (step.done) {
          finished = true;
          break;
        }
        if (typeof step.value !== 'string') throw noText();
        const delta = text.push(step.value);
        if (delta !== '') yield { type: 'delta', text: delta };
      }
    } finally {
      run.end();
      // Lets a generator stopped early (by the cap, a failure or a consumer that went away) close its I/O.
      if (!finished)
        void Promise.resolve()
          .then(() => pieces.return?.())
          .catch(() => {});
    }
    if (text.text === '') throw noText();
    if (signal?.aborted) throw signal.reason;
    yield { type: 'document', document: await this.store(owner, fields, template, text.text) };
  }

  /** The generator's pieces; a generator that cannot stream gives its whole text as one piece. */
  private pieces(request: GenerationRequest, signal: AbortSignal): AsyncIterable<string> {
    const generator = this.options.generator;
    if (generator.stream !== undefined) return generator.stream(request, signal);
    return (async function* whole(): AsyncGenerator<string> {
      yield await generator.generate(request, signal);
    })();
  }

  /**
   * Runs a read-change-write of document `id` after the others of this process, under the document's
   * lease, so that no write from any process sharing the store loses another's fields or revives a
   * deleted document.
   */
  private serialized<T>(id: number, operation: () => Promise<T>): Promise<T> {
    const leased = () => withLease(this.options.counters, `documents:lease:${id}`, operation);
    const previous = this.writing.get(id) ?? Promise.resolve();
    const next = previous.then(leased, leased);
    const settled = next.catch(() => {});
    this.writing.set(id, settled);
    void settled.then(() => {
      if (this.writing.get(id) === settled) this.writing.delete(id);
    });
    return next;
  }
}

/** What the generator is asked for a creation. */
function generationRequest(fields: CreateInput, template: Template): GenerationRequest {
  return {
    instruction: template.instruction,
    templateName: template.name,
    prompt: fields.prompt,
    creativity: fields.creativity,
  };
}

function noText(): DossierError {
  return new DossierError('ERR_GENERATOR_FAILED', 'The text generator returned no text.');
}

/** The first `max` characters (code points) of `text`, so that every stored result can be updated as is. */
function capCharacters(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}
