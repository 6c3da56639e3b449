import type { IncomingMessage } from 'node:http';
import busboy, { type Busboy } from 'busboy';
import { ArrivingBytes } from '../bytes/arrivingBytes';
import { ApiError, invalidParam, unsupportedEncoding } from '../core/errors';
import { ERROR_CODES } from '../../shared/errors';
import { LIMITS } from '../../shared/imageParams';
import {
  checkMask,
  fileTooLarge,
  toInputImage,
  tooManyImages,
  type EditRequest,
  type ReceivedFile,
} from './editRules';
import { invalidRequest, missingParam, UNKNOWN_PARAMETER } from './fields';
import { parseImageOptions } from './imageOptions';

const INDEXED_IMAGE = /^image\[(\d{1,4})\]$/;

/** A file part as it arrives, gathered into one buffer while the body is still coming. */
interface Slot {
  param: 'image' | 'mask';
  filename: string;
  label: string;
  index: number | null;
  bytes: ArrivingBytes;
  truncated: boolean;
}

/**
 * POST /v1/images/edits as multipart/form-data (spec 4.2). Images may come as `image`, `image[]`
 * (arrival order) or `image[N]` (ordered by N); formats are sniffed from the bytes. The promise
 * rejects with an ApiError (400) as soon as the body is known to be bad; the rest of the body is
 * then read and discarded, so the client can finish sending and read the 400.
 */
export function parseEditMultipart(req: IncomingMessage): Promise<EditRequest> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*(;|$)/i.test(contentType)) {
    req.resume();
    return Promise.reject(
      invalidRequest(
        'POST /v1/images/edits expects a multipart/form-data body (let the client library set the' +
          ` Content-Type with its boundary) or a JSON body with images[].image_url; got Content-Type '${contentType}'`,
      ),
    );
  }
  // Files are passed on as they are: a compressed form would have to be inflated first.
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    req.resume();
    return Promise.reject(unsupportedEncoding(encoding));
  }
  let parser: Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: {
        // busboy flags a file that reaches this size: files must be strictly under the limit.
        fileSize: LIMITS.maxInputFileBytes,
        // One above what is allowed, so the extra image gets this module's own message.
        files: LIMITS.maxInputImages + 2,
        fields: 64,
        parts: 128,
      },
    });
  } catch (error) {
    req.resume();
    return Promise.reject(invalidRequest(`Malformed multipart Content-Type: ${messageOf(error)}`));
  }
  return collect(req, parser);
}

function collect(req: IncomingMessage, parser: Busboy): Promise<EditRequest> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    const images: Slot[] = [];
    let mask: Slot | null = null;
    // How much of the body is still to come, for sizing each file's buffer (ArrivingBytes).
    const declared = Number(req.headers['content-length'] ?? NaN);
    let received = 0;
    let lastChunk = 0;
    const bodyLeft = (): number | null =>
      Number.isSafeInteger(declared)
        ? // The chunk being parsed may already be counted: it is still to come for the part.
          Math.min(LIMITS.maxInputFileBytes, Math.max(0, declared - received + lastChunk))
        : null;

    const fail = (error: ApiError): void => {
      if (settled) return;
      settled = true;
      // Free what was buffered: the request lives on while its remaining bytes are drained.
      for (const slot of mask ? [...images, mask] : images) slot.bytes.release();
      req.unpipe(parser);
      req.resume();
      reject(error);
    };

    parser.on('file', (name, stream, info) => {
      if (settled) {
        drain(stream);
        return;
      }
      const slot = reserveSlot(name, info.filename, images, mask, bodyLeft);
      if (slot instanceof ApiError) {
        drain(stream);
        fail(slot);
        return;
      }
      if (slot.param === 'mask') mask = slot;
      else images.push(slot);
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        slot.bytes.push(chunk);
      });
      // busboy errors the file stream itself when the body ends inside the part ("Unexpected
      // end of form"): without this handler that error would take the whole process down.
      stream.on('error', (error: unknown) => {
        slot.bytes.release();
        fail(
          invalidParam(
            slot.param,
            `${slot.label} is incomplete: the multipart body ended inside it (${messageOf(error)})`,
          ),
        );
      });
      stream.on('limit', () => {
        // A truncated file must never pass as a smaller image.
        slot.truncated = true;
        slot.bytes.release();
        fail(fileTooLarge(slot.param, slot.label));
      });
    });

    parser.on('field', (name, value, info) => {
      if (settled) return;
      if (name === 'mask' || name === 'image' || name.startsWith('image[')) {
        const param = name === 'mask' ? 'mask' : 'image';
        fail(
          invalidParam(
            param,
            `${name} arrived as a text field: send it as a file part (with a filename)`,
          ),
        );
      } else if (info.valueTruncated) {
        fail(invalidParam(name, `${name} is too long`));
      } else if (Object.hasOwn(fields, name)) {
        fail(invalidParam(name, `${name} was sent more than once`));
      } else {
        fields[name] = value;
      }
    });

    const tooMany = (what: string) => () =>
      fail(invalidRequest(`The multipart body has too many ${what}`));
    parser.on('filesLimit', tooMany('files'));
    parser.on('fieldsLimit', tooMany('fields'));
    parser.on('partsLimit', tooMany('parts'));
    parser.on('error', (error: unknown) =>
      fail(invalidRequest(`Malformed multipart body: ${messageOf(error)}`)),
    );
    req.on('error', () => fail(uploadInterrupted()));
    req.on('close', () => {
      if (!req.complete) fail(uploadInterrupted());
    });

    parser.on('close', () => {
      if (settled) return;
      settled = true;
      try {
        resolve(buildRequest(fields, images, mask));
      } catch (error) {
        reject(error as Error);
      }
    });

    req.pipe(parser);
    // Counted after the parser has had each chunk (listeners run in order), for the size hint.
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      lastChunk = chunk.length;
    });
  });
}

/** Classifies a file part, or returns the 400 that rejects it. */
function reserveSlot(
  name: string,
  filename: string | undefined,
  images: Slot[],
  mask: Slot | null,
  sizeHint: () => number | null,
): Slot | ApiError {
  const base = { filename: filename || name, truncated: false };
  const bytes = new ArrivingBytes(sizeHint);
  if (name === 'mask') {
    if (mask) return invalidParam('mask', 'mask was sent more than once: send at most one mask');
    return { ...base, bytes, param: 'mask', label: `mask '${base.filename}'`, index: null };
  }
  const indexed = INDEXED_IMAGE.exec(name);
  if (name !== 'image' && name !== 'image[]' && !indexed) {
    return invalidParam(
      name,
      `Unknown file field '${name}': send images as image, image[] or image[N], and the mask as mask`,
      UNKNOWN_PARAMETER,
    );
  }
  const index = indexed ? Number(indexed[1]) : null;
  const count = images.length + 1;
  if (count > LIMITS.maxInputImages) return tooManyImages(count, 'image');
  if (images.length > 0 && (images[0]!.index === null) !== (index === null)) {
    return invalidParam(
      'image',
      'Mixed image field names: use either image / image[] (kept in order of arrival) or image[N]' +
        ' (ordered by N), not both',
    );
  }
  if (index !== null && images.some((slot) => slot.index === index)) {
    return invalidParam('image', `${name} was sent more than once`);
  }
  const label = indexed ? `${name} ('${base.filename}')` : `image ${count} ('${base.filename}')`;
  return { ...base, bytes, param: 'image', label, index };
}

function buildRequest(
  fields: Record<string, string>,
  slots: Slot[],
  maskSlot: Slot | null,
): EditRequest {
  const options = parseImageOptions(fields, { endpoint: 'edits', coerceStrings: true });
  if (slots.length === 0) {
    throw missingParam(
      'image',
      'image is required: send one or more image files as image, image[] or image[N]',
    );
  }
  const ordered = slots[0]!.index === null ? slots : [...slots].sort((a, b) => a.index! - b.index!);
  const images = ordered.map((slot) => toInputImage(received(slot), slot.label, false));
  const request: EditRequest = { options, images };
  if (maskSlot) {
    request.mask = toInputImage(received(maskSlot), maskSlot.label, true);
    checkMask(request.mask, images[0]!, 'mask');
  }
  return request;
}

function received(slot: Slot): ReceivedFile {
  if (slot.truncated) throw fileTooLarge(slot.param, slot.label);
  return {
    bytes: slot.bytes.bytes(),
    filename: slot.filename,
    param: slot.param,
  };
}

/** Discards a file part nobody reads; its stream may still error when the body is cut short. */
function drain(stream: NodeJS.ReadableStream): void {
  stream.on('error', () => undefined);
  stream.resume();
}

function uploadInterrupted(): ApiError {
  return invalidRequest('The request body ended before the upload finished', ERROR_CODES.cancelled);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
