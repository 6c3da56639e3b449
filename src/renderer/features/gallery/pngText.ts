/**
 * Text chunks in PNG files (PNG spec 11.3.3.3 tEXt and 11.3.3.5 iTXt): how an exported image
 * carries its prompt and parameters inside itself. Written by hand (a chunk is length, type,
 * data and a CRC-32 over type and data); the pixels are never decoded or re-encoded.
 */

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const IHDR_END = 8 + 4 + 4 + 13 + 4;

export class PngError extends Error {
  override name = 'PngError';
}

let table: Uint32Array | null = null;
function crcTable(): Uint32Array {
  if (table) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** CRC-32 (ISO 3309, the one PNG and ZIP use) of `bytes`. */
export function crc32(bytes: Uint8Array): number {
  const t = crcTable();
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= IHDR_END && SIGNATURE.every((b, i) => bytes[i] === b);
}

/** A PNG keyword: 1-79 Latin-1 printable characters, no leading, trailing or double spaces. */
function checkKeyword(keyword: string): void {
  if (
    keyword.length < 1 ||
    keyword.length > 79 ||
    !/^[\x20-\x7e\xa1-\xff]+$/.test(keyword) ||
    /^ | $| {2}/.test(keyword)
  ) {
    throw new PngError(`"${keyword}" is not a PNG keyword`);
  }
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

/** An uncompressed iTXt chunk: any Unicode text, stored as UTF-8. */
export function itxtChunk(keyword: string, text: string): Uint8Array {
  checkKeyword(keyword);
  const key = latin1(keyword);
  const body = new TextEncoder().encode(text);
  // keyword \0, compression flag 0, method 0, language tag "" \0, translated keyword "" \0.
  const data = new Uint8Array(key.length + 5 + body.length);
  data.set(key, 0);
  data.set(body, key.length + 5);
  return chunk('iTXt', data);
}

/** A tEXt chunk: Latin-1 text only (use iTXt for anything else). */
export function textChunk(keyword: string, text: string): Uint8Array {
  checkKeyword(keyword);
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0xff) throw new PngError('tEXt holds Latin-1 text only');
  }
  const key = latin1(keyword);
  const data = new Uint8Array(key.length + 1 + text.length);
  data.set(key, 0);
  data.set(latin1(text), key.length + 1);
  return chunk('tEXt', data);
}

/**
 * The PNG with `chunks` (from itxtChunk / textChunk) placed right after its IHDR, where every
 * reader finds them before the image data. One copy of the file; the rest is unchanged.
 */
export function withPngChunks(png: Uint8Array, chunks: readonly Uint8Array[]): Uint8Array {
  if (!isPng(png)) throw new PngError('not a PNG file');
  const type = String.fromCharCode(...png.subarray(12, 16));
  const length = new DataView(png.buffer, png.byteOffset).getUint32(8);
  if (type !== 'IHDR' || length !== 13) throw new PngError('the PNG does not start with IHDR');
  const extra = chunks.reduce((sum, c) => sum + c.length, 0);
  const out = new Uint8Array(png.length + extra);
  out.set(png.subarray(0, IHDR_END), 0);
  let at = IHDR_END;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  out.set(png.subarray(IHDR_END), at);
  return out;
}

export interface PngTextEntry {
  type: 'tEXt' | 'iTXt';
  keyword: string;
  text: string;
  /** The stored CRC matched the chunk. */
  crcOk: boolean;
}

/** The text chunks of a PNG (uncompressed ones), in file order. */
export function readPngText(png: Uint8Array): PngTextEntry[] {
  if (!isPng(png)) throw new PngError('not a PNG file');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out: PngTextEntry[] = [];
  let at = 8;
  while (at + 12 <= png.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    const end = at + 12 + length;
    if (end > png.length) throw new PngError(`the ${type} chunk runs past the end of the file`);
    const data = png.subarray(at + 8, at + 8 + length);
    const crcOk = view.getUint32(at + 8 + length) === crc32(png.subarray(at + 4, at + 8 + length));
    if (type === 'tEXt' || type === 'iTXt') {
      const zero = data.indexOf(0);
      const keyword = String.fromCharCode(...data.subarray(0, zero));
      if (type === 'tEXt') {
        out.push({ type, keyword, text: String.fromCharCode(...data.subarray(zero + 1)), crcOk });
      } else if (data[zero + 1] === 0) {
        const language = data.indexOf(0, zero + 3);
        const translated = data.indexOf(0, language + 1);
        const text = new TextDecoder().decode(data.subarray(translated + 1));
        out.push({ type, keyword, text, crcOk });
      }
    }
    if (type === 'IEND') break;
    at = end;
  }
  return out;
}
