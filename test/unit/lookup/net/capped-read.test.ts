import { expect } from 'chai';
import { Readable } from 'node:stream';
import { readCapped } from '../../../../lib/lookup/net/capped-read.js';

const tooLong = (): Error => new Error('too long');

/** A web stream of `chunks`, that says whether it was cancelled and how many chunks were pulled. */
function webStream(chunks: Uint8Array[]): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean; pulled: () => number } {
  let cancelled = false;
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[pulled++];
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled, pulled: () => pulled };
}

describe('readCapped', () => {
  it('reads a Node stream to its end when it fits, the cap included', async () => {
    const body = await readCapped(Readable.from([Buffer.from('abc'), Buffer.from('def')]), { maxBytes: 6, tooLong });
    expect(body.toString()).to.equal('abcdef');
  });

  it('stops at the first byte over the cap and destroys a Node stream', async () => {
    const source = Readable.from(
      (function* () {
        for (;;) yield Buffer.alloc(1000);
      })(),
    );
    const error = await readCapped(source, { maxBytes: 4500, tooLong }).catch((e: unknown) => e);
    expect(error).to.have.property('message', 'too long');
    expect(source.destroyed).to.equal(true);
  });

  it('reads a fetch body (a web stream), and cancels one over the cap', async () => {
    const fits = webStream([new Uint8Array([104, 105])]);
    expect((await readCapped(fits.stream, { maxBytes: 2, tooLong })).toString()).to.equal('hi');
    const over = webStream([new Uint8Array(3), new Uint8Array(3), new Uint8Array(3)]);
    const error = await readCapped(over.stream, { maxBytes: 5, tooLong }).catch((e: unknown) => e);
    expect(error).to.have.property('message', 'too long');
    expect(over.cancelled()).to.equal(true);
    expect(over.pulled()).to.be.below(4);
  });

  it('refuses a body whose announced length is over the cap before reading any of it', async () => {
    const announced = webStream([new Uint8Array(1)]);
    const error = await readCapped(announced.stream, { maxBytes: 10, declaredBytes: 11, tooLong }).catch((e: unknown) => e);
    expect(error).to.have.property('message', 'too long');
    expect(announced.cancelled()).to.equal(true);
    // No announced length (a missing header reads as NaN): the body decides.
    expect(
      (await readCapped(webStream([new Uint8Array(2)]).stream, { maxBytes: 10, declaredBytes: Number.NaN, tooLong })).length,
    ).to.equal(2);
  });

  it('reads no body as empty', async () => {
    expect((await readCapped(null, { maxBytes: 0, tooLong })).length).to.equal(0);
  });
});
