import sharp from 'sharp';

/** What an agent host can show inline: long edge at most 1024 px, WebP, under 1 MB. */
export const PREVIEW_EDGE = 1024;
export const PREVIEW_MAX_BYTES = 1_000_000;

export interface Preview {
  data: Buffer;
  mimeType: 'image/webp';
  width: number;
  height: number;
}

/**
 * A preview of a delivered image. The full image stays in the gallery (the result's resource
 * link); hosts cap what a tool may return, and a 4K PNG is tens of MB of base64. Lower qualities
 * are tried until it fits, which a 1024 px WebP does at the first or second in practice.
 */
export async function previewOf(image: Buffer): Promise<Preview> {
  for (const quality of [82, 65, 45, 25]) {
    const { data, info } = await sharp(image)
      .resize({
        width: PREVIEW_EDGE,
        height: PREVIEW_EDGE,
        fit: 'inside',
        withoutEnlargement: true,
      })
      .webp({ quality })
      .toBuffer({ resolveWithObject: true });
    if (data.length < PREVIEW_MAX_BYTES) {
      return { data, mimeType: 'image/webp', width: info.width, height: info.height };
    }
  }
  throw new Error('the preview does not fit in 1 MB even at the lowest quality');
}
