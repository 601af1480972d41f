import { DossierError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type {
  Document,
  DocumentChanges,
  DocumentListOptions,
  DocumentPage,
  DocumentService,
  DocumentStreamEvent,
  NewDocument,
  Template,
} from '../ports/document-service.js';
import type { StoredChanges, DocumentStore, StoredDocument } from '../ports/document-store.js';
import type { GenerationRequest, TextGenerator } from '../ports/text-generator.js';
import { GenerationRun } from './generation-run.js';
import { StreamedText } from './streamed-text.js';
import { documentId, parseCreateInput, parseListOptions, parseUpdateInput, type CreateInput } from './validation.js';
import { RESULT_MAX } from '../schemas/documents.js';
import { countWords } from './word-count.js';

/** What a {@link StoreDocumentService} works with. */
export interface StoreDocumentServiceOptions {
  /** Where the documents live. */
  store: DocumentStore;
  generator: TextGenerator;
  clock: Clock;
  /** Every template by id, 1 to 72. */
  templates: Map<number, Template>;
  /** Deadline of one generation, in milliseconds. */
  generatorTimeoutMs: number;
}

/**
 * Interface B on a {@link DocumentStore}: input checked here, text generated here under the deadline,
 * documents kept and listed by the store.
 */
export class StoreDocumentService implements DocumentService {
  private readonly templateList: Template[];

  constructor(private readonly options: StoreDocumentServiceOptions) {
    this.templateList = [...options.templates.values()].sort((a, b) => a.id - b.id);
  }

  async list(owner: string, options?: DocumentListOptions): Promise<DocumentPage> {
    const parsed = parseListOptions(options);
    const { documents: docs, total } = await this.options.store.list(owner, parsed);
    const from = docs.length === 0 ? null : (parsed.page - 1) * parsed.perPage + 1;
    return {
      data: docs.map((doc) => toDocument(doc, this.options.templates)),
      currentPage: parsed.page,
      perPage: parsed.perPage,
      lastPage: Math.max(1, Math.ceil(total / parsed.perPage)),
      from,
      to: from === null ? null : from + docs.length - 1,
      total,
    };
  }

  async get(owner: string, id: number): Promise<Document> {
    return toDocument(await this.read(owner, id), this.options.templates);
  }

  async create(owner: string, input: NewDocument): Promise<Document> {
    const { fields, template } = this.parseCreate(input);
    // Generate first: a failed generation stores nothing and takes no id.
    const result = await this.generate(generationRequest(fields, template));
    return this.store(owner, fields, template, result);
  }

  async createStream(owner: string, input: NewDocument, signal?: AbortSignal): Promise<AsyncIterable<DocumentStreamEvent>> {
    const { fields, template } = this.parseCreate(input);
    return this.streamDocument(owner, fields, template, signal);
  }

  async update(owner: string, id: number, changes: DocumentChanges): Promise<Document> {
    const current = await this.read(owner, id);
    const fields = parseUpdateInput(changes);
    if (Object.keys(fields).length === 0) return toDocument(current, this.options.templates);
    const stored: StoredChanges = {
      ...fields,
      ...(fields.result === undefined ? {} : { words: countWords(fields.result) }),
      updated_at: new Date(this.options.clock.now()).toISOString(),
    };
    const updated = await this.options.store.update(owner, current.id, stored);
    if (updated === undefined) throw notFound();
    return toDocument(updated, this.options.templates);
  }

  async delete(owner: string, id: number): Promise<number> {
    const current = await this.read(owner, id);
    if (!(await this.options.store.delete(owner, current.id))) throw notFound();
    return current.id;
  }

  templates(): Template[] {
    return this.templateList.map((template) => ({ ...template }));
  }

  /** The owner's document `id`; any other id or owner is "not found". */
  private async read(owner: string, rawId: number): Promise<StoredDocument> {
    const id = documentId(rawId);
    const stored = id === undefined ? undefined : await this.options.store.get(owner, id);
    if (stored === undefined) throw notFound();
    return stored;
  }

  /** The valid fields of a creation and their template. */
  private parseCreate(input: NewDocument): { fields: CreateInput; template: Template } {
    const fields = parseCreateInput(input);
    const template = this.options.templates.get(fields.templateId);
    if (template === undefined) throw new DossierError('ERR_DOCUMENT_INVALID', 'The template does not exist.');
    return { fields, template };
  }

  /** Stores a new document with the generated `result`; the store gives it its id. */
  private async store(owner: string, fields: CreateInput, template: Template, result: string): Promise<Document> {
    const now = new Date(this.options.clock.now()).toISOString();
    const stored = await this.options.store.create({
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
    });
    return toDocument(stored, this.options.templates);
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

function notFound(): DossierError {
  return new DossierError('ERR_DOCUMENT_NOT_FOUND', 'Resource not found.');
}

function noText(): DossierError {
  return new DossierError('ERR_GENERATOR_FAILED', 'The text generator returned no text.');
}

/** The first `max` characters (code points) of `text`, so that every stored result can be updated as is. */
function capCharacters(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

/** The library's form of a stored document (docs/contract.md §3): the owner left out, the template named. */
export function toDocument(stored: StoredDocument, templates: Map<number, Template>): Document {
  return {
    id: stored.id,
    name: stored.name,
    template: { id: stored.template_id, name: templates.get(stored.template_id)?.name ?? `Template ${stored.template_id}` },
    prompt: stored.prompt,
    creativity: stored.creativity,
    result: stored.result,
    words: stored.words,
    favorite: stored.favorite,
    createdAt: stored.created_at,
    updatedAt: stored.updated_at,
  };
}
