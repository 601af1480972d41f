import type { JSONRPCMessage, JSONRPCRequest, Transport } from '@modelcontextprotocol/server';

/** A JSON-RPC answer to one request: its result or its error, under the request's own id. */
export type JsonRpcAnswer = Extract<JSONRPCMessage, { id?: unknown }> & { id: JSONRPCRequest['id'] };

interface Waiting<C> {
  /** The request's id, as its client sent it. */
  id: JSONRPCRequest['id'];
  caller: C;
  resolve(answer: JsonRpcAnswer): void;
}

/**
 * The SDK server's transport inside Dossier: each HTTP request (or stdio line) hands it one JSON-RPC
 * request and awaits the answer, so that one server instance serves every client at once. The requests
 * of different clients may share ids: each is given one of its own on the way in, and its answer has
 * the client's back on the way out. Who sent it (`C`) goes beside it, for the handlers to find.
 *
 * The SDK's own Streamable HTTP transport serves one exchange per server instance when stateless,
 * built and torn down around every request: seven times the CPU of the lookup behind it, measured
 * (docs/benchmarks.md). The protocol itself (initialize, versions, capabilities, dispatch, the result
 * checks) stays the SDK's.
 */
export class ExchangeTransport<C> implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private next = 0;
  private readonly waiting = new Map<number, Waiting<C>>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Only answers come out: the server sends no requests or notifications of its own.
    if (!('id' in message) || typeof message.id !== 'number') return;
    const waiting = this.waiting.get(message.id);
    if (waiting === undefined) return;
    this.waiting.delete(message.id);
    waiting.resolve({ ...message, id: waiting.id } as JsonRpcAnswer);
  }

  /** Hands `request` to the server on behalf of `caller`, and resolves with its answer. */
  exchange(request: JSONRPCRequest, caller: C): Promise<JsonRpcAnswer> {
    return new Promise((resolve) => {
      const id = ++this.next;
      this.waiting.set(id, { id: request.id, caller, resolve });
      this.onmessage?.({ ...request, id });
    });
  }

  /** Who sent the request the server knows as `id` (a handler's `ctx.mcpReq.id`). */
  callerOf(id: JSONRPCRequest['id']): C {
    const waiting = typeof id === 'number' ? this.waiting.get(id) : undefined;
    if (waiting === undefined) throw new Error(`No request ${String(id)} is waiting for an answer.`);
    return waiting.caller;
  }
}
