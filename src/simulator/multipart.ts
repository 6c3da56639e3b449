import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { LIMITS } from '../shared/imageParams';
import { SimHttpError, invalidRequest } from './errors';

export interface MultipartFile {
  field: string;
  bytes: Buffer;
  filename: string;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: MultipartFile[];
}

/** Image fields as clients send them: `image`, repeated `image[]`, or `image[0]`, `image[1]`. */
const IMAGE_FIELD = /^image(\[\d*\])?$/;

export function isImageField(name: string): boolean {
  return IMAGE_FIELD.test(name);
}

export function readMultipart(req: IncomingMessage): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          fileSize: LIMITS.maxInputFileBytes,
          files: LIMITS.maxInputImages + 1,
          fields: 100,
        },
      });
    } catch {
      reject(invalidRequest(null, 'Could not parse the multipart form body.', 'invalid_multipart'));
      return;
    }
    const fields: Record<string, string> = {};
    const files: MultipartFile[] = [];
    let failure: Error | null = null;
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A body cut inside the part errors the file stream; unhandled, it would end the process.
      stream.on('error', () => {
        failure ??= invalidRequest(
          field,
          `File '${field}' is incomplete: the form ended inside it.`,
          'invalid_multipart',
        );
      });
      stream.on('limit', () => {
        failure ??= new SimHttpError(
          400,
          'invalid_request_error',
          'file_too_large',
          `File '${field}' is too large: must be under ${LIMITS.maxInputFileBytes} bytes.`,
          field,
        );
      });
      // Files are kept in arrival order: that is the order the client listed its images in.
      stream.on('end', () =>
        files.push({ field, bytes: Buffer.concat(chunks), filename: info.filename ?? '' }),
      );
    });
    parser.on('filesLimit', () => {
      failure ??= invalidRequest(
        'image',
        `Too many files: at most ${LIMITS.maxInputImages} images and a mask.`,
      );
    });
    parser.on('error', () =>
      reject(invalidRequest(null, 'Could not parse the multipart form body.', 'invalid_multipart')),
    );
    parser.on('close', () => (failure ? reject(failure) : resolve({ fields, files })));
    req.pipe(parser);
  });
}
