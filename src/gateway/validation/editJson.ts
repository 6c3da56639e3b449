import { invalidParam } from '../core/errors';
import type { InputImage } from '../upstream/types';
import { ERROR_CODES } from '../../shared/errors';
import { LIMITS } from '../../shared/imageParams';
import {
  checkMask,
  fileTooLarge,
  toInputImage,
  tooManyImages,
  type EditRequest,
} from './editRules';
import {
  bodyKind,
  describeValue,
  invalidRequest,
  isAbsent,
  isPlainObject,
  missingParam,
  UNKNOWN_PARAMETER,
} from './fields';
import { parseImageOptions } from './imageOptions';

const EXAMPLE = `{"image_url": "data:image/png;base64,..."}`;

/**
 * POST /v1/images/edits as JSON (the Codex CLI form): `images: [{ image_url: <data URL> }]`, an
 * optional `mask: { image_url }`, and the scalar parameters of generations with real JSON types.
 */
export function parseEditJson(body: unknown): EditRequest {
  if (!isPlainObject(body)) {
    throw invalidRequest(
      `The request body must be a JSON object with images: [${EXAMPLE}] and the edit parameters;` +
        ` got ${bodyKind(body)}`,
    );
  }
  const { images, mask, ...scalars } = body;
  if (Object.hasOwn(scalars, 'image')) {
    throw invalidParam(
      'image',
      `JSON edits send input images as images: [${EXAMPLE}], not image`,
      UNKNOWN_PARAMETER,
    );
  }
  const options = parseImageOptions(scalars, { endpoint: 'edits' });
  if (isAbsent(images)) {
    throw missingParam(
      'images',
      `images is required: an array of 1 to ${LIMITS.maxInputImages} ${EXAMPLE}`,
    );
  }
  if (!Array.isArray(images)) {
    throw invalidParam(
      'images',
      `images must be an array of ${EXAMPLE}; got ${describeValue(images)}`,
    );
  }
  if (images.length === 0) {
    throw missingParam('images', 'images is empty: send at least one image');
  }
  if (images.length > LIMITS.maxInputImages) throw tooManyImages(images.length, 'images');
  const inputs = images.map((item, i) =>
    readImageRef(item, `images[${i}]`, `image-${i + 1}`, false),
  );
  const request: EditRequest = { options, images: inputs };
  if (!isAbsent(mask)) {
    request.mask = readImageRef(mask, 'mask', 'mask', true);
    checkMask(request.mask, inputs[0]!, 'mask');
  }
  return request;
}

function readImageRef(item: unknown, param: string, name: string, isMask: boolean): InputImage {
  if (!isPlainObject(item)) {
    throw invalidParam(param, `${param} must be an object ${EXAMPLE}; got ${describeValue(item)}`);
  }
  if (!isAbsent(item.file_id)) {
    throw invalidParam(
      `${param}.file_id`,
      `${param}.file_id: file references are not supported; send the image inline as image_url with a data URL`,
      ERROR_CODES.unsupportedParameter,
    );
  }
  const urlParam = `${param}.image_url`;
  if (isAbsent(item.image_url)) {
    throw missingParam(
      urlParam,
      `${urlParam} is required: a data URL such as data:image/png;base64,...`,
    );
  }
  if (typeof item.image_url !== 'string') {
    throw invalidParam(
      urlParam,
      `${urlParam} must be a data URL string; got ${describeValue(item.image_url)}`,
    );
  }
  const bytes = decodeDataUrl(item.image_url, urlParam);
  const image = toInputImage({ bytes, filename: name, param: urlParam }, urlParam, isMask);
  return { ...image, filename: `${name}.${image.format}` };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeDataUrl(url: string, param: string): Buffer {
  const comma = url.indexOf(',');
  const header = comma < 0 ? url.slice(0, 64) : url.slice(0, comma);
  if (/^https?:/i.test(header)) {
    throw invalidParam(
      param,
      `${param}: remote image URLs are not fetched; send the image inline as a data URL (data:image/png;base64,...)`,
    );
  }
  if (comma < 0 || !/^data:[^,]*;base64$/i.test(header)) {
    throw invalidParam(
      param,
      `${param} must be a base64 data URL such as data:image/png;base64,...`,
    );
  }
  const payload = url.slice(comma + 1);
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const digits = payload.length - padding;
  if (payload.length === 0) throw invalidParam(param, `${param} holds no image data`);
  // Size first: a too-large image is never decoded.
  if (Math.floor((digits * 3) / 4) >= LIMITS.maxInputFileBytes) throw fileTooLarge(param, param);
  if (!BASE64.test(payload) || digits % 4 === 1 || (padding > 0 && payload.length % 4 !== 0)) {
    throw invalidParam(param, `${param} is not valid base64 after 'base64,'`);
  }
  return Buffer.from(payload, 'base64');
}
