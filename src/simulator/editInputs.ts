import sharp from 'sharp';
import type { SimState } from './context';
import { LIMITS } from '../shared/imageParams';
import { SimHttpError, invalidRequest, missingParameter } from './errors';

export interface InputImage {
  bytes: Buffer;
  width: number;
  height: number;
  hasAlpha: boolean;
  format: 'png' | 'jpeg' | 'webp';
}

export interface EditInputs {
  images: InputImage[];
  mask?: InputImage;
}

const ACCEPTED = ['png', 'jpeg', 'webp'] as const;

/** Sniffs the bytes (MIME types from clients are often empty or wrong) and measures the image. */
async function inspect(bytes: Buffer, param: string): Promise<InputImage> {
  if (bytes.length >= LIMITS.maxInputFileBytes) {
    throw new SimHttpError(
      400,
      'invalid_request_error',
      'file_too_large',
      `File '${param}' is too large: must be under ${LIMITS.maxInputFileBytes} bytes.`,
      param,
    );
  }
  const meta = await sharp(bytes)
    .metadata()
    .catch(() => null);
  const format = meta?.format as string | undefined;
  if (!meta?.width || !meta.height || !ACCEPTED.includes(format as (typeof ACCEPTED)[number])) {
    throw invalidRequest(
      param,
      `Invalid image file for '${param}'. Supported file formats are 'png', 'jpeg' and 'webp'.`,
      'invalid_image_format',
    );
  }
  return {
    bytes,
    width: meta.width,
    height: meta.height,
    hasAlpha: meta.hasAlpha === true,
    format: format as InputImage['format'],
  };
}

/**
 * Checks an edit's inputs the way the provider does: 1..16 images; the mask matches image 0.
 * Inputs that pass are kept in `state.lastEdit` for inspection.
 */
export async function inspectEditInputs(
  state: Pick<SimState, 'lastEdit'>,
  images: Buffer[],
  mask: Buffer | undefined,
  imageParam: string,
  maskParam: string,
): Promise<EditInputs> {
  const inputs = await checkEditInputs(images, mask, imageParam, maskParam);
  state.lastEdit = { at: Date.now(), image: inputs.images[0]!.bytes, mask: mask ?? null };
  return inputs;
}

async function checkEditInputs(
  images: Buffer[],
  mask: Buffer | undefined,
  imageParam: string,
  maskParam: string,
): Promise<EditInputs> {
  if (images.length === 0) throw missingParameter(imageParam);
  if (images.length > LIMITS.maxInputImages) {
    throw invalidRequest(
      imageParam,
      `Too many images: at most ${LIMITS.maxInputImages} are allowed.`,
    );
  }
  const inspected = await Promise.all(images.map((bytes) => inspect(bytes, imageParam)));
  if (!mask) return { images: inspected };
  const maskImage = await inspect(mask, maskParam);
  const first = inspected[0]!;
  if (maskImage.width !== first.width || maskImage.height !== first.height) {
    throw invalidRequest(
      maskParam,
      `Invalid mask: size ${maskImage.width}x${maskImage.height} does not match image size ${first.width}x${first.height}.`,
      'invalid_mask',
    );
  }
  if (!maskImage.hasAlpha) {
    throw invalidRequest(
      maskParam,
      'Invalid mask: the mask must have an alpha channel.',
      'invalid_mask',
    );
  }
  return { images: inspected, mask: maskImage };
}

const DATA_URL = /^data:([^;,]*)(;[^,]*)?,(.*)$/s;

/** Edit images arrive as data URLs; the simulator is offline, so remote URLs are refused. */
export function decodeDataUrl(value: unknown, param: string): Buffer {
  if (typeof value !== 'string')
    throw invalidRequest(param, `Expected '${param}' to be a data URL string.`, 'invalid_type');
  const match = DATA_URL.exec(value);
  if (!match) {
    throw invalidRequest(
      param,
      `Invalid '${param}': expected a base64 data URL (data:image/png;base64,...).`,
      'invalid_image_url',
    );
  }
  const isBase64 = (match[2] ?? '').includes(';base64');
  return isBase64
    ? Buffer.from(match[3]!, 'base64')
    : Buffer.from(decodeURIComponent(match[3]!), 'latin1');
}

/** `{image_url}` objects of the JSON edit form and the native channel. */
export function imageUrlOf(value: unknown, param: string): Buffer {
  if (typeof value !== 'object' || value === null || !('image_url' in value)) {
    throw invalidRequest(
      param,
      `Expected '${param}' to be an object with an 'image_url'.`,
      'invalid_type',
    );
  }
  return decodeDataUrl((value as { image_url: unknown }).image_url, `${param}.image_url`);
}
