/*
 * A job's event text with its `sequence_number`, without parsing it: an image event's JSON holds
 * the whole image as base64 (20 MB for a 4K PNG), and parsing and writing it again to add one
 * field costs about 270 ms of the event loop, where splicing costs nothing.
 */

/** The event's `type` when the JSON starts with it (as the gateway and upstreams write them). */
export function leadingType(text: string): string | null {
  const match = /^\{"type":"([A-Za-z0-9_.-]{1,100})"[,}]/.exec(text.slice(0, 128));
  return match ? match[1]! : null;
}

/**
 * The same JSON object with `sequence_number: n`: a top-level one right after `type` (the
 * upstream's own numbering) is replaced; otherwise the field is added last, which a JSON reader
 * takes over any earlier one of the same name. Null for text that is not a JSON object's.
 */
export function withSequence(text: string, n: number): string | null {
  const body = text.trim();
  if (!body.startsWith('{') || !body.endsWith('}')) return null;
  const field = `"sequence_number":${n}`;
  const head = /^(\{"type":"(?:[^"\\]|\\.)*",)"sequence_number":-?\d+(?:\.\d+)?(?=[,}])/.exec(
    body.slice(0, 256),
  );
  if (head) return `${head[1]}${field}${body.slice(head[0].length)}`;
  if (/^\{\s*\}$/.test(body)) return `{${field}}`;
  return `${body.slice(0, -1)},${field}}`;
}
