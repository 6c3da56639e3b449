import type { OutputFormat } from '../../shared/imageParams';

type FromBase64 = (b64: string) => Uint8Array<ArrayBuffer>;

/** Decodes base64 with the native decoder where the browser has one (no intermediate string). */
export function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  const native = (Uint8Array as unknown as { fromBase64?: FromBase64 }).fromBase64;
  if (native) return native(b64);
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export const MIME_TYPES: Record<OutputFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

export function mimeOf(format: string | null | undefined): string {
  return format && format in MIME_TYPES ? MIME_TYPES[format as OutputFormat] : 'image/png';
}

export function base64ToBlob(b64: string, format: string | null | undefined): Blob {
  return new Blob([base64ToBytes(b64)], { type: mimeOf(format) });
}
