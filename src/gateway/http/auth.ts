import type { NextFunction, Request, Response } from 'express';
import { invalidApiKey } from '../core/errors';
import type { AuthenticatedKey, KeyAuthenticator } from '../keys/authenticator';
import { scopeOf } from './requestScope';

/**
 * `Authorization: Bearer <service key>` on every /v1 call (spec 5). Missing, unknown, disabled and
 * deleted keys all get the same 401, so the answer does not reveal which keys exist.
 *
 * The studio sends no Authorization header: its session (cookie and `x-atelier-studio: 1`, see
 * studioSession.ts) stands for the built-in Studio key, so its work is in the usage log too.
 */
const missingKey = () =>
  invalidApiKey(
    'Missing API key. Send Authorization: Bearer <key>; create keys on the /keys page or with `atelier keys create`.',
  );

export function requireApiKey(
  keys: KeyAuthenticator,
  now: () => number,
  hasStudioSession: (req: Request) => Promise<boolean> = () => Promise.resolve(false),
) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.headers.authorization;
    if (header === undefined) {
      const asStudio = async () => {
        if (!(await hasStudioSession(req))) {
          next(missingKey());
          return;
        }
        const studioKey = await keys.studioKey();
        if (!studioKey) {
          next(invalidApiKey('The Studio key is disabled. Enable it with `atelier keys enable`.'));
          return;
        }
        accept(studioKey, true, res, keys, now);
        next();
      };
      asStudio().catch(next);
      return;
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) {
      next(missingKey());
      return;
    }
    const asKey = async (presented: string) => {
      const key = await keys.authenticate(presented);
      if (!key) {
        next(
          invalidApiKey(
            'Invalid API key: it is unknown, disabled or deleted. Create a new key on the /keys page.',
          ),
        );
        return;
      }
      accept(key, false, res, keys, now);
      next();
    };
    asKey(match[1]!).catch(next);
  };
}

function accept(
  key: AuthenticatedKey,
  studioSession: boolean,
  res: Response,
  keys: KeyAuthenticator,
  now: () => number,
): void {
  scopeOf(res).authenticate(key, studioSession);
  keys.touch(key.id, now());
}
