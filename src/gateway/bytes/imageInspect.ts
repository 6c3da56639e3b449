import { joinPieces, piecesPrefix, type Base64Pieces } from './base64Pieces';

/**
 * Format, dimensions and alpha of an image, read from header bytes only: never decodes pixels,
 * never trusts a MIME type or file name, never throws on garbage.
 */
export interface ImageInfo {
  format: 'png' | 'jpeg' | 'webp';
  width: number;
  height: number;
  hasAlpha: boolean;
}

/** The bytes ended before the header did: more input could still decide. */
const NEED_MORE = Symbol('need-more');
type Sniff = ImageInfo | null | typeof NEED_MORE;

export function inspectImage(bytes: Buffer): ImageInfo | null {
  const result = sniff(bytes);
  return result === NEED_MORE ? null : result;
}

/**
 * Base64 characters decoded first: 1 KB (768 bytes) holds a PNG's header up to its first IDAT, a
 * WebP's and most JPEGs'. Each miss decodes eight times as much, so a JPEG whose SOF sits behind a
 * 64 KB EXIF block costs a few more small decodes, and a small image's header costs microseconds,
 * not a 72 KB decode per look (a reply looks up to three times: stream, delivery check, gallery).
 */
const FIRST_WINDOW = 1024;
const GROWTH = 8;
/** The most of a multi-piece text joined to look for its header before joining all of it. */
const PIECES_HEAD = 96 * 1024;

/**
 * Sniffs decoded prefixes of base64 text `length` characters long, growing from FIRST_WINDOW.
 * `text(end)` gives its first `end` characters. NEED_MORE when even the whole text ends early.
 */
function sniffGrowing(text: (end: number) => string, length: number): Sniff {
  let window = Math.min(FIRST_WINDOW, length);
  for (;;) {
    // Decoding a prefix yields a prefix of the full decode (a partial last quantum decodes to the
    // bytes it fully covers), so a header inside it is read exactly.
    const result = sniff(Buffer.from(text(window), 'base64'));
    if (result !== NEED_MORE || window >= length) return result;
    window = Math.min(length, window * GROWTH);
  }
}

/**
 * Inspects base64 image text (a 33 MB upstream image, say) by decoding a prefix, growing it only
 * when the header runs past it (a JPEG's SOF behind a large EXIF block), up to the whole text.
 */
export function inspectBase64Prefix(b64: Buffer | string): ImageInfo | null {
  try {
    const result = sniffGrowing(
      (end) => (typeof b64 === 'string' ? b64.slice(0, end) : b64.toString('latin1', 0, end)),
      b64.length,
    );
    return result === NEED_MORE ? null : result;
  } catch {
    return null;
  }
}

/** `inspectBase64Prefix` for text in pieces: the header is nearly always in the first one. */
export function inspectBase64Pieces(pieces: Base64Pieces): ImageInfo | null {
  if (pieces.length === 1) return inspectBase64Prefix(pieces[0]!);
  const head = inspectBase64Head(piecesPrefix(pieces, PIECES_HEAD));
  if (head !== 'more') return head;
  return inspectBase64Prefix(joinPieces(pieces));
}

/**
 * Reads the header from the first base64 characters of an image that is still arriving:
 * `'more'` when they end before the header does, so the caller can wait for the next piece.
 */
export function inspectBase64Head(head: Buffer): ImageInfo | null | 'more' {
  try {
    const result = sniffGrowing((end) => head.toString('latin1', 0, end), head.length);
    return result === NEED_MORE ? 'more' : result;
  } catch {
    return null;
  }
}

function sniff(b: Buffer): Sniff {
  try {
    if (startsWith(b, PNG_SIGNATURE)) return sniffPng(b);
    if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return sniffJpeg(b);
    if (
      b.length >= 12 &&
      b.toString('latin1', 0, 4) === 'RIFF' &&
      b.toString('latin1', 8, 12) === 'WEBP'
    ) {
      return sniffWebp(b);
    }
    return isPrefixOfKnownSignature(b) ? NEED_MORE : null;
  } catch {
    return null;
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function startsWith(b: Buffer, prefix: Buffer): boolean {
  return b.length >= prefix.length && b.subarray(0, prefix.length).equals(prefix);
}

function isPrefixOfKnownSignature(b: Buffer): boolean {
  if (b.length >= 12) return false;
  const candidates = [PNG_SIGNATURE, Buffer.from([0xff, 0xd8, 0xff]), Buffer.from('RIFF')];
  return candidates.some((sig) =>
    b.subarray(0, Math.min(b.length, sig.length)).equals(sig.subarray(0, b.length)),
  );
}

/** PNG: IHDR gives the size; colour type 4/6, or a tRNS chunk before IDAT, gives alpha. */
function sniffPng(b: Buffer): Sniff {
  if (b.length < 33) return NEED_MORE;
  if (b.readUInt32BE(8) !== 13 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  const colourType = b[25]!;
  if (!validDimensions(width, height) || width > 0x7fffffff || height > 0x7fffffff) return null;
  if (![0, 2, 3, 4, 6].includes(colourType)) return null;
  if (colourType === 4 || colourType === 6) return { format: 'png', width, height, hasAlpha: true };
  let offset = 33;
  for (;;) {
    if (offset + 8 > b.length) return NEED_MORE;
    const length = b.readUInt32BE(offset);
    const type = b.toString('latin1', offset + 4, offset + 8);
    if (length > 0x7fffffff) return null;
    if (type === 'tRNS') return { format: 'png', width, height, hasAlpha: true };
    if (type === 'IDAT') return { format: 'png', width, height, hasAlpha: false };
    if (type === 'IEND') return null;
    offset += 12 + length;
  }
}

/** JPEG: walk the marker segments to the first start-of-frame. JPEG has no alpha channel. */
function sniffJpeg(b: Buffer): Sniff {
  let offset = 2;
  for (;;) {
    if (offset >= b.length) return NEED_MORE;
    if (b[offset] !== 0xff) return null;
    while (b[offset] === 0xff) offset++;
    if (offset >= b.length) return NEED_MORE;
    const marker = b[offset]!;
    offset++;
    // Standalone markers carry no length: TEM, RSTn, a stray SOI.
    if (marker === 0x01 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    // Image data or the end before any frame header: not an image we can measure.
    if (marker === 0xda || marker === 0xd9 || marker === 0x00) return null;
    if (offset + 2 > b.length) return NEED_MORE;
    const length = b.readUInt16BE(offset);
    if (length < 2) return null;
    if (isStartOfFrame(marker)) {
      if (length < 8) return null;
      if (offset + 7 > b.length) return NEED_MORE;
      const height = b.readUInt16BE(offset + 3);
      const width = b.readUInt16BE(offset + 5);
      // Height 0 means "defined later by a DNL marker": not measurable from the header.
      return validDimensions(width, height)
        ? { format: 'jpeg', width, height, hasAlpha: false }
        : null;
    }
    offset += length;
  }
}

/** SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC) which share the range. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** WebP: the first chunk says which of the three layouts holds the size and alpha. */
function sniffWebp(b: Buffer): Sniff {
  if (b.length < 20) return NEED_MORE;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    if (b.length < 30) return NEED_MORE;
    // Frame tag bit 0 clear = key frame; then the start code 9d 01 2a and 14-bit dimensions.
    if ((b[20]! & 0x01) !== 0 || b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    const width = b.readUInt16LE(26) & 0x3fff;
    const height = b.readUInt16LE(28) & 0x3fff;
    return validDimensions(width, height)
      ? { format: 'webp', width, height, hasAlpha: false }
      : null;
  }
  if (chunk === 'VP8L') {
    if (b.length < 25) return NEED_MORE;
    if (b[20] !== 0x2f) return null;
    const bits = b.readUInt32LE(21);
    if (bits >>> 29 !== 0) return null; // version must be 0
    const width = (bits & 0x3fff) + 1;
    const height = ((bits >>> 14) & 0x3fff) + 1;
    const hasAlpha = ((bits >>> 28) & 1) === 1;
    return { format: 'webp', width, height, hasAlpha };
  }
  if (chunk === 'VP8X') {
    if (b.length < 30) return NEED_MORE;
    const hasAlpha = (b[20]! & 0x10) !== 0;
    const width = b.readUIntLE(24, 3) + 1;
    const height = b.readUIntLE(27, 3) + 1;
    return { format: 'webp', width, height, hasAlpha };
  }
  return null;
}

/**
 * Why the file cannot be whole, or null when its structure runs to its end: a PNG's chunks reach
 * IEND, a JPEG has an end-of-image marker after its frame header, a WebP holds as many bytes as
 * its RIFF header declares. Reads lengths and markers only; a truncated upload fails here
 * instead of at the upstream.
 */
export function incompleteReason(bytes: Buffer, format: ImageInfo['format']): string | null {
  try {
    if (format === 'png') return pngIncomplete(bytes);
    if (format === 'jpeg') return jpegIncomplete(bytes);
    return webpIncomplete(bytes);
  } catch {
    return 'its structure cannot be read';
  }
}

function pngIncomplete(b: Buffer): string | null {
  let offset = 8;
  while (offset + 8 <= b.length) {
    const length = b.readUInt32BE(offset);
    const type = b.toString('latin1', offset + 4, offset + 8);
    if (length > 0x7fffffff) return `its ${type} chunk declares an impossible length`;
    if (offset + 12 + length > b.length) return `it ends inside its ${type} chunk`;
    if (type === 'IEND') return null;
    offset += 12 + length;
  }
  return 'it ends before its IEND chunk';
}

/** The end-of-image marker may be followed by padding some encoders add, but not by much. */
const JPEG_TRAILER_SLACK = 64 * 1024;

function jpegIncomplete(b: Buffer): string | null {
  const from = Math.max(2, b.length - JPEG_TRAILER_SLACK);
  for (let i = b.length - 2; i >= from; i--) {
    if (b[i] === 0xff && b[i + 1] === 0xd9) return null;
  }
  return 'it has no end-of-image marker (the file is cut short)';
}

function webpIncomplete(b: Buffer): string | null {
  const declared = b.readUInt32LE(4) + 8;
  return declared > b.length
    ? `it holds ${b.length} bytes but its header declares ${declared}`
    : null;
}

function validDimensions(width: number, height: number): boolean {
  return width > 0 && height > 0;
}
