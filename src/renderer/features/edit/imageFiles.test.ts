import { describe, expect, it } from 'vitest';
import { sniffImageFormat } from './imageFiles';

const bytes = (...values: Array<number | string>) =>
  new Uint8Array(
    values.flatMap((v) => (typeof v === 'number' ? [v] : Array.from(v, (c) => c.charCodeAt(0)))),
  );

describe('sniffImageFormat', () => {
  it('reads PNG, JPEG and WebP signatures', () => {
    expect(sniffImageFormat(bytes(0x89, 'PNG\r\n', 0x1a, '\n'))).toBe('png');
    expect(sniffImageFormat(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe('jpeg');
    expect(sniffImageFormat(bytes('RIFF', 0, 0, 0, 0, 'WEBPVP8 '))).toBe('webp');
  });

  it('refuses anything else, including short and GIF files', () => {
    expect(sniffImageFormat(bytes('GIF89a'))).toBeNull();
    expect(sniffImageFormat(bytes('RIFF', 0, 0, 0, 0, 'WAVE'))).toBeNull();
    expect(sniffImageFormat(new Uint8Array())).toBeNull();
  });
});
