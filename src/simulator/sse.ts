import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { SocketReset } from './errors';
import { jsonPieces } from './jsonBody';

/**
 * A server-sent event stream in the provider's framing: `event: <type>` then `data: <json>` with
 * the type repeated inside, a blank line after each. `resetAfter` (a 'reset' fault) destroys the
 * socket after that many events, to imitate a connection lost mid-stream.
 */
export class SseStream {
  private sent = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly signal: AbortSignal,
    private readonly resetAfter?: number,
  ) {}

  open(headers: Record<string, string>): void {
    this.res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    this.res.flushHeaders();
  }

  async send(type: string, data: Record<string, unknown>): Promise<void> {
    if (this.resetAfter !== undefined && this.sent >= this.resetAfter) {
      this.res.destroy();
      throw new SocketReset();
    }
    this.sent += 1;
    this.res.cork();
    this.res.write(`event: ${type}\ndata: `);
    for (const piece of jsonPieces({ type, ...data })) this.res.write(piece);
    this.res.write('\n\n');
    this.res.uncork();
    // Big 4K frames would pile up in memory if a slow client were ignored: wait for the socket.
    // Asked after uncork, not from write()'s return value: a corked write says false, and on
    // Node 24 the uncork may flush everything and never emit 'drain' (it waited forever).
    if (this.res.writableNeedDrain && !this.res.destroyed) {
      await once(this.res, 'drain', { signal: this.signal });
    }
  }

  end(): void {
    this.res.end();
  }
}

/** Responses events additionally carry `sequence_number`, counting from 0. */
export class ResponsesEventStream {
  private sequence = 0;

  constructor(private readonly sse: SseStream) {}

  emit(type: string, fields: Record<string, unknown>): Promise<void> {
    const sequence_number = this.sequence;
    this.sequence += 1;
    return this.sse.send(type, { ...fields, sequence_number });
  }
}
