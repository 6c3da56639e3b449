import type { NextFunction, Request, Response } from 'express';
import type { SettingsRepository } from '../storage/settingsRepository';

/**
 * Before a request reads any setting (the Origin check reads the allowed origins): the settings
 * snapshot is read again when another connection changed the database since. Nearly always
 * nothing changed, and the request goes on at once, without a query or a promise.
 */
export function freshSettings(settings: Pick<SettingsRepository, 'stale' | 'refresh'>) {
  return (_req: Request, _res: Response, next: NextFunction): void => {
    if (!settings.stale()) {
      next();
      return;
    }
    settings.refresh().then(() => next(), next);
  };
}
