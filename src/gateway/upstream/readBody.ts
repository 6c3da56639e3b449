/** Collects a body into one buffer with a single final copy. */
export async function readAll(body: AsyncIterable<Buffer | Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** Reads at most `limit` bytes of an error body as text and discards the rest. */
export async function readErrorText(
  body: AsyncIterable<Buffer | Uint8Array>,
  limit = 64 * 1024,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < limit) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      chunks.push(buf);
      size += buf.length;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}
