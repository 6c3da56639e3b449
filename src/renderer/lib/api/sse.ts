import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * Server-sent events from the bytes of a fetch body, by the maintained `eventsource-parser`. An
 * image event's `data:` line is a whole base64 image (tens of MB for a 4K PNG) over hundreds of
 * network chunks: the parser keeps a long line's pieces and joins them once, when it ends.
 */
export interface SseEvent {
  /** The `event:` field, or 'message' when absent. */
  event: string;
  /** The `data:` lines joined with '\n'. */
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder();
  private events: SseEvent[] = [];
  private readonly parser = createParser({
    onEvent: (message: EventSourceMessage) =>
      this.events.push({ event: message.event || 'message', data: message.data }),
  });

  /** Feeds raw bytes (a network chunk); returns the events completed by them. */
  push(chunk: Uint8Array): SseEvent[] {
    return this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /**
   * The stream closed. A last event without its blank line is still delivered, as the official
   * SDKs do, so a server that closes right after its final `data:` line loses nothing.
   */
  end(): SseEvent[] {
    // Two line ends complete a last line, then dispatch its event; after a complete stream they
    // are blank lines, which dispatch nothing.
    return this.feed(`${this.decoder.decode()}\n\n`);
  }

  private feed(text: string): SseEvent[] {
    this.parser.feed(text);
    const done = this.events;
    this.events = [];
    return done;
  }
}
