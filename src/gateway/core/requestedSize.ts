/**
 * A request's output size, read once (validation/imageOptions.ts `readSize` checks it against
 * spec 8.1) and carried as this value: the text as written, and its numbers. Nothing after
 * validation parses a size string again.
 */
export type RequestedSize =
  | {
      readonly text: 'auto';
      readonly auto: true;
      readonly width: null;
      readonly height: null;
      readonly pixels: null;
    }
  | {
      /** `<width>x<height>` in its one canonical spelling. */
      readonly text: string;
      readonly auto: false;
      readonly width: number;
      readonly height: number;
      readonly pixels: number;
    };

export const AUTO_SIZE: RequestedSize = {
  text: 'auto',
  auto: true,
  width: null,
  height: null,
  pixels: null,
};

/** A size of checked dimensions (validation's, or one the gateway picks, like a ladder step's). */
export function sizeOf(width: number, height: number): RequestedSize {
  return { text: `${width}x${height}`, auto: false, width, height, pixels: width * height };
}
