/**
 * Incremental server-sent events parser for image streams.
 *
 * An image event's `data:` line carries a whole base64 image (tens of MB for 4K PNG) spread over
 * hundreds of network chunks. The parser never re-concatenates a growing buffer per chunk: it
 * keeps the pieces of the current line in an array, searches only the new text for line breaks,
 * and joins each line exactly once, when it ends.
 */
export interface SseEvent {
  /** The `event:` field, or 'message' when absent. */
  event: string;
  /** The `data:` lines joined with '\n'. */
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder();
  private lineParts: string[] = [];
  private eventName = '';
  private dataLines: string[] = [];
  private hasData = false;
  /** The previous text ended in '\r': a '\n' at the start of the next is the same line break. */
  private skipLineFeed = false;

  /** Feeds raw bytes (a network chunk); returns the events completed by them. */
  push(chunk: Uint8Array): SseEvent[] {
    return this.pushText(this.decoder.decode(chunk, { stream: true }));
  }

  /** Feeds decoded text; returns the events completed by it. */
  pushText(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let pos = 0;
    if (this.skipLineFeed && text.charCodeAt(0) === 10) pos = 1;
    this.skipLineFeed = false;
    // Both searches are native and each index is reused until passed, so a 30 MB line with no
    // '\r' is scanned once, not once per line.
    let lf = text.indexOf('\n', pos);
    let cr = text.indexOf('\r', pos);
    while (lf !== -1 || cr !== -1) {
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      this.lineParts.push(text.slice(pos, end));
      const line = this.lineParts.length === 1 ? this.lineParts[0]! : this.lineParts.join('');
      this.lineParts = [];
      const event = this.takeLine(line);
      if (event) events.push(event);
      pos = end + 1;
      if (end === cr) {
        if (pos === text.length) this.skipLineFeed = true;
        else if (text.charCodeAt(pos) === 10) pos += 1;
      }
      if (lf !== -1 && lf < pos) lf = text.indexOf('\n', pos);
      if (cr !== -1 && cr < pos) cr = text.indexOf('\r', pos);
    }
    if (pos < text.length) this.lineParts.push(pos === 0 ? text : text.slice(pos));
    return events;
  }

  /**
   * The stream closed. A last event without its blank line is still delivered, as the official
   * SDKs do, so a server that closes right after its final `data:` line loses nothing.
   */
  end(): SseEvent[] {
    const events = this.pushText(this.decoder.decode());
    if (this.lineParts.length > 0) {
      const event = this.takeLine(this.lineParts.join(''));
      this.lineParts = [];
      if (event) events.push(event);
    }
    const last = this.dispatch();
    if (last) events.push(last);
    return events;
  }

  private takeLine(line: string): SseEvent | null {
    if (line === '') return this.dispatch();
    if (line.charCodeAt(0) === 58) return null; // ':' comment, e.g. ": keepalive"
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'event') this.eventName = value;
    else if (field === 'data') {
      this.dataLines.push(value);
      this.hasData = true;
    }
    // `id` and `retry` mean nothing for a one-shot image stream.
    return null;
  }

  private dispatch(): SseEvent | null {
    const event = this.hasData
      ? {
          event: this.eventName || 'message',
          data: this.dataLines.length === 1 ? this.dataLines[0]! : this.dataLines.join('\n'),
        }
      : null;
    this.eventName = '';
    this.dataLines = [];
    this.hasData = false;
    return event;
  }
}
