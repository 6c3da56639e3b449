import type { Request, Response } from 'express';
import { invalidParam } from '../errors';
import { parseEditJson, parseEditMultipart } from '../validation/editRequest';
import { checkDecodable } from '../validation/editRules';
import { validCount } from '../validation/imageOptions';
import { usageNotes } from './requestContext';

/** Edits come as multipart (files as they are) or JSON (images as data URLs). */
export async function parseEdit(req: Request, res: Response) {
  if (req.is('multipart/form-data')) {
    const edit = await parseEditMultipart(req);
    await checkDecodable(edit, () => 'image');
    return edit;
  }
  noteRawFields(req, res);
  if (!req.is('application/json')) {
    throw invalidParam(
      'image',
      'Edits take multipart/form-data (image[] files, optional mask) or a JSON body with images[].image_url.',
    );
  }
  const edit = parseEditJson(req.body);
  await checkDecodable(edit, (i) => `images[${i}].image_url`);
  return edit;
}

export function notJson() {
  return invalidParam(
    'body',
    'This endpoint takes a JSON body with Content-Type: application/json.',
  );
}

/** Even a request that fails validation is recorded with the model and size it asked for. */
export function noteRawFields(req: Request, res: Response): void {
  const body = (req.body ?? {}) as Record<string, unknown>;
  usageNotes(res).requested({
    model: typeof body.model === 'string' ? body.model.slice(0, 100) : undefined,
    size: typeof body.size === 'string' ? body.size.slice(0, 20) : undefined,
    // Only a valid count: 1e300 or 2.5 must not reach the record's integer column.
    n: validCount(body.n) ?? undefined,
    stream: body.stream === true ? true : undefined,
  });
}
