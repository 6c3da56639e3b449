import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SimHttpError, invalidRequest } from './errors';
import { jsonPieces, piecesByteLength } from './jsonBody';

/** Sixteen edit images of up to 50 MB each, base64-encoded in one JSON body, plus room for fields. */
export const MAX_JSON_BYTES = Math.ceil((16 * 50 * 1024 * 1024 * 4) / 3) + 1024 * 1024;

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      throw new SimHttpError(
        413,
        'invalid_request_error',
        'request_too_large',
        `Request body exceeds ${limit} bytes.`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function isJson(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().includes('application/json');
}

/** Parses a JSON object body; anything else is the provider's 400. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = (await readBody(req, MAX_JSON_BYTES)).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest(null, 'We could not parse the JSON body of your request.', 'invalid_json');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidRequest(null, 'The request body must be a JSON object.', 'invalid_json');
  }
  return value as Record<string, unknown>;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const pieces = jsonPieces(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': piecesByteLength(pieces),
  });
  // Uncorked before end(): on Node 24 an end() while corked loses writes still held by the cork.
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.uncork();
  res.end();
}

/** A JSON reply that promises its whole length, sends `afterBytes` of it, and breaks off. */
export function sendJsonCutOff(
  res: ServerResponse,
  body: unknown,
  afterBytes: number,
  headers: Record<string, string> = {},
): void {
  const bytes = Buffer.concat(jsonPieces(body));
  res.writeHead(200, {
    ...headers,
    'content-type': 'application/json',
    'content-length': bytes.length,
  });
  res.write(bytes.subarray(0, Math.min(afterBytes, bytes.length - 1)), () => res.destroy());
}

export function bearerToken(req: IncomingMessage): string | null {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S.*)$/i.exec(header.trim());
  return match ? match[1]!.trim() : null;
}

export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
