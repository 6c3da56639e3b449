import type { NextFunction, Request, Response } from 'express';
import { invalidApiKey } from '../errors';
import type { UsageDraft } from '../usage/draft';

export interface AuthenticatedKey {
  id: string;
  group: string;
  /** The key opted into the quality/size fallback ladder. */
  fallbackLadder: boolean;
  /** Requests this key may have in flight at once; null for no cap. */
  concurrencyLimit: number | null;
}

export interface KeyAuthenticator {
  authenticate(presented: string): AuthenticatedKey | null;
  touch(id: string, now: number): void;
}

/**
 * `Authorization: Bearer <service key>` on every /v1 call (spec 5). Missing, unknown, disabled and
 * deleted keys all get the same 401, so the answer does not reveal which keys exist.
 */
export function requireApiKey(keys: KeyAuthenticator, now: () => number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      next(
        invalidApiKey(
          'Missing API key. Send Authorization: Bearer <key>; create keys on the /keys page or with `atelier keys create`.',
        ),
      );
      return;
    }
    const key = keys.authenticate(match[1]!);
    if (!key) {
      next(
        invalidApiKey(
          'Invalid API key: it is unknown, disabled or deleted. Create a new key on the /keys page.',
        ),
      );
      return;
    }
    res.locals.apiKey = key;
    const draft = res.locals.usage as UsageDraft | undefined;
    if (draft) {
      draft.apiKeyId = key.id;
      draft.groupName = key.group;
    }
    keys.touch(key.id, now());
    next();
  };
}
