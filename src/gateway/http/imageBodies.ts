import type { Request, Response } from 'express';
import { invalidParam } from '../core/errors';
import { parseEditJson, parseEditMultipart } from '../validation/editRequest';
import { checkDecodable } from '../validation/editRules';
import { noteRawFields } from './requestContext';
import { scopeOf } from './requestScope';

/** Edits come as multipart (files as they are) or JSON (images as data URLs). */
export async function parseEdit(req: Request, res: Response) {
  if (req.is('multipart/form-data')) {
    const edit = await parseEditMultipart(req);
    await checkDecodable(edit, () => 'image');
    return edit;
  }
  noteRawFields(req, scopeOf(res));
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
