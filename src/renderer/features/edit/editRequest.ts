import type { ReferenceImage } from '../../stores/edit';
import { appendFields } from '../generate/params';
import { convertToPng, type ImageFormat } from './imageFiles';

const EXTENSION: Record<ImageFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };

/**
 * The multipart body of POST /v1/images/edits: the fields, every reference as `image[]` in
 * order, and the mask. Spec 4.2 wants the mask in the first image's format, and the mask is a
 * PNG, so a JPEG or WebP first image is converted to PNG (same pixels, same size) first.
 */
export async function buildEditForm(
  references: readonly ReferenceImage[],
  fields: Record<string, string | number | boolean>,
  mask: Blob | null,
  convert: (blob: Blob) => Promise<Blob> = convertToPng,
): Promise<FormData> {
  const form = new FormData();
  appendFields(form, fields);
  for (const [i, ref] of references.entries()) {
    const needsPng = i === 0 && mask !== null && ref.format !== 'png';
    const blob = needsPng ? await convert(ref.blob) : ref.blob;
    const ext = needsPng ? 'png' : EXTENSION[ref.format];
    form.append('image[]', blob, `image-${i + 1}.${ext}`);
  }
  if (mask) form.append('mask', mask, 'mask.png');
  return form;
}
