import { expect } from 'chai';
import Keyv from 'keyv';
import { KeyvDocumentService } from '../../../lib/documents/keyv-document-service.js';
import { buildTemplates } from '../../../lib/documents/templates.js';
import { DossierError } from '../../../lib/errors.js';
import type { TextGenerator } from '../../../lib/ports/text-generator.js';
import type { Backend } from '../../../lib/ports/backend.js';
import { openBackend } from '../../../lib/stores/open-backend.js';
import { KeyvKvStore } from '../../../lib/stores/shared/keyv-kv-store.js';

/** A memory KvStore that records the keys read through it. */
class RecordingKv extends KeyvKvStore {
  read: string[] = [];

  constructor() {
    super(new Keyv());
  }
  override async get<T>(key: string): Promise<T | undefined> {
    this.read.push(key);
    return super.get<T>(key);
  }
  override async getMany<T>(keys: string[]): Promise<(T | undefined)[]> {
    this.read.push(...keys);
    return super.getMany<T>(keys);
  }
}

const echo: TextGenerator = { generate: async (request) => `Draft: ${request.prompt}` };

describe('KeyvDocumentService', () => {
  let backend: Backend;
  let kv: RecordingKv;

  beforeEach(() => {
    backend = openBackend('memory://', { namespace: 'test', clock: { now: () => Date.now() } });
    kv = new RecordingKv();
  });

  afterEach(async () => {
    await backend.close();
    await kv.close();
  });

  function service(generator: TextGenerator = echo, generatorTimeoutMs = 1000, cache = {}): KeyvDocumentService {
    return new KeyvDocumentService({
      kv,
      counters: backend.counters,
      generator,
      clock: { now: () => Date.UTC(2026, 0, 1) },
      templates: buildTemplates({}),
      generatorTimeoutMs,
      cache,
    });
  }

  it("lists an owner's documents without reading other owners' documents", async () => {
    const documents = service();
    const alice = [];
    for (let i = 0; i < 3; i += 1) {
      alice.push((await documents.create('alice', { name: `a${i}`, prompt: 'p' })).id);
      await documents.create('bob', { name: `b${i}`, prompt: 'p' });
    }
    // A fresh service in the same store has nothing cached.
    const fresh = service();
    kv.read = [];
    expect((await fresh.list('alice', {})).total).to.equal(3);
    const documentReads = kv.read.filter((key) => key.startsWith('doc:'));
    expect(documentReads.sort()).to.deep.equal(alice.map((id) => `doc:${id}`).sort());
  });

  it('reads nothing but the version counter for a listing when nothing changed', async () => {
    const documents = service();
    await documents.create('alice', { name: 'a', prompt: 'p' });
    await documents.list('alice', {});
    kv.read = [];
    await documents.list('alice', { search: 'a' });
    await documents.list('alice', { sort_by: 'name' });
    expect(kv.read).to.deep.equal([]);
  });

  it('still lists correctly after the owner was evicted from the cache', async () => {
    const documents = service(echo, 1000, { maxOwners: 1 });
    await documents.create('alice', { name: 'a', prompt: 'p' });
    await documents.create('bob', { name: 'b', prompt: 'p' });
    expect((await documents.list('alice', {})).data.map((d) => d.name)).to.deep.equal(['a']);
    expect((await documents.list('bob', {})).data.map((d) => d.name)).to.deep.equal(['b']);
    await documents.create('alice', { name: 'a2', prompt: 'p' });
    expect((await documents.list('alice', {})).data.map((d) => d.name)).to.deep.equal(['a2', 'a']);
  });

  it('times out a generator that ignores the abort signal, and stores nothing', async () => {
    let aborted = false;
    const stuck: TextGenerator = {
      generate: (_request, signal) => {
        signal.addEventListener('abort', () => (aborted = true));
        return new Promise(() => {});
      },
    };
    const documents = service(stuck, 50);
    const error = await documents.create('alice', { name: 'a', prompt: 'p' }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DossierError).with.property('code', 'ERR_GENERATOR_TIMEOUT');
    expect(aborted).to.equal(true);
    expect(await backend.counters.get('documents:id')).to.equal(0);
    expect((await documents.list('alice', {})).total).to.equal(0);
  });

  it('turns a generator crash into ERR_GENERATOR_FAILED, and caps a long result at 20480 characters', async () => {
    const crashing = service({ generate: async () => Promise.reject(new TypeError('boom')) });
    const error = await crashing.create('alice', { name: 'a', prompt: 'p' }).catch((e: unknown) => e);
    expect(error).to.have.property('code', 'ERR_GENERATOR_FAILED');
    const long = service({ generate: async () => '😀'.repeat(30000) });
    const doc = await long.create('alice', { name: 'a', prompt: 'p' });
    expect(Array.from(doc.result)).to.have.length(20480);
  });

  it('keeps both fields of two concurrent updates of one document', async () => {
    const documents = service();
    const { id } = await documents.create('alice', { name: 'a', prompt: 'p' });
    await Promise.all([
      documents.update('alice', String(id), { name: 'renamed' }),
      documents.update('alice', String(id), { favorite: '1' }),
    ]);
    expect(await documents.get('alice', String(id))).to.include({ name: 'renamed', favorite: true });
  });

  it('fills the index slot of a create whose id the store refused, so that later listings stay whole', async () => {
    let refuse = true;
    const counters = new Proxy(backend.counters, {
      get(target, property, receiver) {
        if (property !== 'increment') return Reflect.get(target, property, receiver) as unknown;
        return async (name: string, ...rest: unknown[]) => {
          if (name === 'documents:id' && refuse) throw new DossierError('ERR_STORE_UNAVAILABLE', 'down');
          return (target.increment as (...args: unknown[]) => Promise<number | null>).call(target, name, ...rest);
        };
      },
    });
    const documents = new KeyvDocumentService({
      kv,
      counters,
      generator: echo,
      clock: { now: () => Date.UTC(2026, 0, 1) },
      templates: buildTemplates({}),
      generatorTimeoutMs: 1000,
    });
    const refused = await documents.create('alice', { name: 'lost', prompt: 'p' }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(DossierError).with.property('code', 'ERR_STORE_UNAVAILABLE');
    refuse = false;
    const kept = await documents.create('alice', { name: 'kept', prompt: 'p' });
    // The refused create's slot holds an id no document has, not a hole that would end the index's prefix.
    expect(await kv.get('documents:alice:1')).to.equal('0');
    const page = await service().list('alice', {});
    expect(page.data.map((doc) => doc.id)).to.deep.equal([kept.id]);
  });

  it('never returns the owner', async () => {
    const documents = service();
    const created = await documents.create('alice', { name: 'a', prompt: 'p' });
    expect(created).to.not.have.property('owner');
    expect((await documents.list('alice', {})).data[0]).to.not.have.property('owner');
  });
});
