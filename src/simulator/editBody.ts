import type { Ctx } from './context';
import { imageUrlOf } from './editInputs';
import { invalidRequest } from './errors';
import { isJson, readJsonObject } from './http';
import { isImageField, readMultipart } from './multipart';

/** An edit request before validation: its plain fields plus the raw image and mask bytes. */
export interface EditBody {
  raw: Record<string, unknown>;
  /** Multipart fields are all strings; JSON fields keep their types. */
  fromForm: boolean;
  images: Buffer[];
  mask?: Buffer;
}

/**
 * Reads an edit in either form: multipart (`image`, `image[]`, `image[N]`, `mask` files) or JSON
 * (`images: [{image_url}]`, `mask: {image_url}`) as the Codex CLI and the native channel send it.
 */
export async function readEditBody(ctx: Ctx, allowMultipart: boolean): Promise<EditBody> {
  const contentType = (ctx.req.headers['content-type'] ?? '').toLowerCase();
  if (allowMultipart && contentType.startsWith('multipart/form-data')) {
    const { fields, files } = await readMultipart(ctx.req);
    return {
      raw: fields,
      fromForm: true,
      images: files.filter((file) => isImageField(file.field)).map((file) => file.bytes),
      mask: files.find((file) => file.field === 'mask')?.bytes,
    };
  }
  if (!isJson(ctx.req) && allowMultipart) {
    throw invalidRequest(
      null,
      'Expected multipart/form-data or application/json.',
      'invalid_content_type',
    );
  }
  const raw = await readJsonObject(ctx.req);
  const list = raw.images ?? [];
  if (!Array.isArray(list))
    throw invalidRequest('images', "Invalid type for 'images': expected an array.", 'invalid_type');
  return {
    raw,
    fromForm: false,
    images: list.map((item, index) => imageUrlOf(item, `images[${index}]`)),
    mask: raw.mask === undefined || raw.mask === null ? undefined : imageUrlOf(raw.mask, 'mask'),
  };
}
