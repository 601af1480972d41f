import { expect } from 'chai';
import { DossierError } from '../../../lib/errors.js';
import { MAX_EVENT_CHARS, readChatCompletionChunks } from '../../../lib/generators/chat-completion-chunks.js';
import { HTTP_ERRORS } from '../../../adapters/http/errors.js';

/** A body that hands out `packets` one read at a time, and records whether it was cancelled. */
function body(packets: (string | Uint8Array)[]): {
  stream: ReadableStream<Uint8Array>;
  cancelled: () => boolean;
  read: () => number;
} {
  let index = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const packet = packets[index];
        index += 1;
        if (packet === undefined) controller.close();
        else controller.enqueue(typeof packet === 'string' ? new TextEncoder().encode(packet) : packet);
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, cancelled: () => cancelled, read: () => index };
}

const chunk = (content: string | undefined, finish: string | null = null): string =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`;

async function read(packets: (string | Uint8Array)[], maxBytes = 1024 * 1024): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of readChatCompletionChunks(body(packets).stream, maxBytes)) pieces.push(piece);
  return pieces;
}

async function failure(packets: (string | Uint8Array)[], maxBytes?: number): Promise<DossierError> {
  try {
    await read(packets, maxBytes);
  } catch (error) {
    expect(error).to.be.instanceOf(DossierError);
    return error as DossierError;
  }
  throw new Error('expected the reading to fail');
}

describe('readChatCompletionChunks', () => {
  it('yields each delta content in order and ends at [DONE]', async () => {
    expect(await read([chunk(''), chunk('Hello'), chunk(', world'), chunk(undefined, 'stop'), 'data: [DONE]\n\n'])).to.deep.equal(
      ['Hello', ', world'],
    );
  });

  it('puts together events, lines and UTF-8 characters split across packets, byte by byte', async () => {
    const text = chunk('Grüße ') + chunk('日本語 🎉') + 'data: [DONE]\n\n';
    const bytes = new TextEncoder().encode(text);
    const packets = Array.from(bytes, (byte) => Uint8Array.of(byte));
    expect((await read(packets)).join('')).to.equal('Grüße 日本語 🎉');
  });

  it('reads CRLF line endings, comments and fields it does not use', async () => {
    const text = `: keep-alive\r\nid: 1\r\nevent: message\r\n${chunk('A').replace(/\n/g, '\r\n')}retry: 10\r\n\r\ndata: [DONE]\r\n\r\n`;
    expect(await read([text])).to.deep.equal(['A']);
  });

  it('stops reading at [DONE] and cancels the body, even with more after it', async () => {
    const source = body([chunk('A') + 'data: [DONE]\n\n', 'data: not json\n\n']);
    const pieces: string[] = [];
    for await (const piece of readChatCompletionChunks(source.stream, 1024)) pieces.push(piece);
    expect(pieces).to.deep.equal(['A']);
    expect(source.read()).to.equal(1);
    expect(source.cancelled()).to.equal(true);
  });

  it('cancels the body when the consumer stops early', async () => {
    const source = body([chunk('A'), chunk('B'), chunk('C')]);
    for await (const piece of readChatCompletionChunks(source.stream, 1024)) {
      expect(piece).to.equal('A');
      break;
    }
    expect(source.cancelled()).to.equal(true);
  });

  it('accepts a body that ends after a finish_reason without [DONE]', async () => {
    expect(await read([chunk('A'), chunk(undefined, 'stop')])).to.deep.equal(['A']);
  });

  it('refuses a chunk that is not JSON (a 502), after the pieces before it', async () => {
    const pieces: string[] = [];
    let caught: unknown;
    try {
      for await (const piece of readChatCompletionChunks(
        body([chunk('A'), 'data: {"choices": [oops\n\n', chunk('B')]).stream,
        1024,
      )) {
        pieces.push(piece);
      }
    } catch (error) {
      caught = error;
    }
    expect(pieces).to.deep.equal(['A']);
    expect(caught).to.be.instanceOf(DossierError);
    const error = caught as DossierError;
    expect(error.code).to.equal('ERR_GENERATOR_FAILED');
    expect(error.message).to.equal('The text generator streamed a chunk that is not JSON.');
    expect(HTTP_ERRORS[error.code].status).to.equal(502);
  });

  for (const [label, packets, message] of [
    ['a body that ends before [DONE] or a finish_reason', [chunk('A')], 'The text generator broke off its answer.'],
    [
      'a chunk that reports an error',
      [chunk('A'), `data: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`],
      'The text generator reported an error in its stream.',
    ],
    [
      'a chunk that is JSON but not an object',
      ['data: 42\n\n'],
      'The text generator streamed a chunk that is not a JSON object.',
    ],
    [
      'an answer without any text',
      [chunk(''), chunk(undefined, 'stop'), 'data: [DONE]\n\n'],
      'The text generator answered without any text (no choices[0].delta.content).',
    ],
    [
      'an event longer than the buffer allows',
      [`data: ${'x'.repeat(MAX_EVENT_CHARS + 10)}`],
      `The text generator streamed an event of more than ${MAX_EVENT_CHARS} characters.`,
    ],
  ] as const) {
    it(`fails (ERR_GENERATOR_FAILED) on ${label}`, async () => {
      const error = await failure([...packets], 16 * 1024 * 1024);
      expect(error.code).to.equal('ERR_GENERATOR_FAILED');
      expect(error.message).to.equal(message);
    });
  }

  it('refuses a body over maxBytes and cancels it', async () => {
    const source = body([chunk('A'), chunk('B'.repeat(200)), chunk('C')]);
    let caught: unknown;
    try {
      for await (const _ of readChatCompletionChunks(source.stream, 150)) {
        // read on
      }
    } catch (error) {
      caught = error;
    }
    expect((caught as DossierError).message).to.equal('The text generator streamed more than 150 bytes.');
    expect(source.cancelled()).to.equal(true);
  });

  it('throws an error of the body itself as it is', async () => {
    const broken = new Error('socket hang up');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(chunk('A')));
      },
      pull(controller) {
        controller.error(broken);
      },
    });
    const pieces: string[] = [];
    let caught: unknown;
    try {
      for await (const piece of readChatCompletionChunks(stream, 1024)) pieces.push(piece);
    } catch (error) {
      caught = error;
    }
    expect(pieces).to.deep.equal(['A']);
    expect(caught).to.equal(broken);
  });
});
