import { expect } from 'chai';
import Keyv from 'keyv';
import { KeyvDocumentStore } from '../../../lib/documents/keyv-document-store.js';
import { StoreDocumentService } from '../../../lib/documents/store-document-service.js';
import { buildTemplates } from '../../../lib/documents/templates.js';
import type { CounterStore } from '../../../lib/ports/counter-store.js';
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

describe('KeyvDocumentStore (documents on memory://)', () => {
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

  const clock = { now: () => Date.UTC(2026, 0, 1) };

  function service(
    generator: TextGenerator = echo,
    generatorTimeoutMs = 1000,
    cache = {},
    counters: CounterStore = backend.counters,
  ): StoreDocumentService {
    return new StoreDocumentService({
      store: new KeyvDocumentStore(kv, counters, clock, cache),
      generator,
      clock,
      templates: buildTemplates({}),
      generatorTimeoutMs,
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

  it("after another process's writes, reads only the log slots written since and the documents they name", async () => {
    const mine = service();
    const other = service();
    const ids = [];
    for (let i = 0; i < 20; i += 1) ids.push((await other.create('alice', { name: `d${i}`, prompt: 'p' })).id);
    expect((await mine.list('alice', {})).total).to.equal(20);
    const created = await other.create('alice', { name: 'new', prompt: 'p' });
    await other.update('alice', ids[3]!, { name: 'renamed' });
    await other.delete('alice', ids[5]!);
    kv.read = [];
    const page = await mine.list('alice', { perPage: 100, sort: 'asc' });
    expect(page.total).to.equal(20);
    expect(page.data.map((d) => d.name))
      .to.include.members(['new', 'renamed'])
      .and.not.include('d5');
    expect([...kv.read].sort()).to.deep.equal(
      [
        'documents:alice:21',
        'documents:alice:22',
        'documents:alice:23',
        `doc:${created.id}`,
        `doc:${ids[3]}`,
        `doc:${ids[5]}`,
      ].sort(),
    );
    // Its own writes it applies as it makes them: the next listing reads no value at all.
    kv.read = [];
    await mine.update('alice', ids[4]!, { favorite: true });
    const written = kv.read.length;
    expect((await mine.list('alice', { favorite: true })).data.map((d) => d.id)).to.deep.equal([ids[4]]);
    expect(kv.read).to.have.length(written);
  });

  it('reads nothing but the log length for a listing when nothing changed', async () => {
    const documents = service();
    await documents.create('alice', { name: 'a', prompt: 'p' });
    await documents.list('alice', {});
    kv.read = [];
    await documents.list('alice', { search: 'a' });
    await documents.list('alice', { sortBy: 'name' });
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
    await Promise.all([documents.update('alice', id, { name: 'renamed' }), documents.update('alice', id, { favorite: true })]);
    expect(await documents.get('alice', id)).to.include({ name: 'renamed', favorite: true });
  });

  it('fills the log slot of a create whose id the store refused with an id no document has', async () => {
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
    const documents = service(echo, 1000, {}, counters);
    const refused = await documents.create('alice', { name: 'lost', prompt: 'p' }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(DossierError).with.property('code', 'ERR_STORE_UNAVAILABLE');
    refuse = false;
    const kept = await documents.create('alice', { name: 'kept', prompt: 'p' });
    // The refused create's slot holds an id no document has, not a hole that every listing would read again.
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
