import type { NextFunction, Request, Response } from 'express';
import { PARENT_IMAGE_HEADER } from '../../shared/admin';
import { invalidParam } from '../core/errors';
import { scopeOf } from './requestScope';

/**
 * `x-atelier-parent-image: <id>` on an edit made from the gallery links the new image to the one
 * it was made from. Checked before any upstream work: an unknown id is a 400, not a lost link.
 */
export function parentImage(exists: (id: string) => Promise<boolean>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const value = req.headers[PARENT_IMAGE_HEADER];
    if (value === undefined || req.method !== 'POST') {
      next();
      return;
    }
    const id = String(value).trim();
    if (!/^img_[0-9a-f]{1,64}$/.test(id) || !(await exists(id))) {
      next(
        invalidParam(
          PARENT_IMAGE_HEADER,
          `${PARENT_IMAGE_HEADER} names no image in the gallery: '${id.slice(0, 80)}'.`,
        ),
      );
      return;
    }
    scopeOf(res).madeFrom(id);
    next();
  };
}
