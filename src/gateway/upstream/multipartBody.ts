import { randomBytes } from 'node:crypto';

export interface MultipartPart {
  name: string;
  value: string | { bytes: Buffer; filename: string; contentType: string };
}

/**
 * Builds a multipart body as a list of buffers that point at the original file bytes: a 50 MB
 * reference image is sent upstream without being copied into one big body buffer.
 */
export function buildMultipart(parts: MultipartPart[]): {
  contentType: string;
  chunks: Buffer[];
  length: number;
} {
  const boundary = `----atelier${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const name = part.name.replace(/"/g, '%22');
    if (typeof part.value === 'string') {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${part.value}\r\n`,
        ),
      );
    } else {
      const filename = part.value.filename.replace(/["\r\n]/g, '_');
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\n` +
            `Content-Type: ${part.value.contentType}\r\n\r\n`,
        ),
        part.value.bytes,
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    chunks,
    length: chunks.reduce((sum, c) => sum + c.length, 0),
  };
}
