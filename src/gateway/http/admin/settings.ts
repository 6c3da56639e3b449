import { Router } from 'express';
import { settingsPatchSchema, type ServerInfo, type Settings } from '../../../shared/admin';
import { SETTINGS } from '../../settings';
import type { Setting, SettingsRepository } from '../../storage/settingsRepository';
import { parse } from './parse';

/** The settings the studio edits, by their API names. */
const EDITABLE: { [K in keyof Settings]: Setting<Settings[K]> } = {
  strictDelivery: SETTINGS.strictDelivery,
  fallbackLadder: SETTINGS.fallbackLadder,
  injectImageTool: SETTINGS.injectImageTool,
  contentFilter: SETTINGS.contentFilter,
  bridgeModel: SETTINGS.bridgeModel,
  timeoutNormalMs: SETTINGS.timeoutNormalMs,
  timeoutLargeMs: SETTINGS.timeoutLargeMs,
  allowedOrigins: SETTINGS.allowedOrigins,
  keepApiImages: SETTINGS.keepApiImages,
  serverHost: SETTINGS.serverHost,
  serverPort: SETTINGS.serverPort,
};

export interface SettingsAdminDeps {
  settings: SettingsRepository;
  server: () => ServerInfo;
}

export function readSettings(settings: SettingsRepository): Settings {
  const entries = Object.entries(EDITABLE).map(([name, setting]) => [
    name,
    settings.get(setting as Setting<unknown>),
  ]);
  return Object.fromEntries(entries) as Settings;
}

/**
 * /api/admin/settings: read all, change some. Every change applies to the next request, but the
 * address (`serverHost`, `serverPort`), which applies from the gateway's next start.
 */
export function settingsAdmin(deps: SettingsAdminDeps): Router {
  const router = Router();
  const answer = () => ({ settings: readSettings(deps.settings), server: deps.server() });

  router.get('/settings', (_req, res) => {
    res.json(answer());
  });

  router.put('/settings', async (req, res) => {
    const patch = parse(settingsPatchSchema, req.body);
    for (const [name, value] of Object.entries(patch)) {
      await deps.settings.set(EDITABLE[name as keyof Settings] as Setting<unknown>, value);
    }
    res.json(answer());
  });

  return router;
}
