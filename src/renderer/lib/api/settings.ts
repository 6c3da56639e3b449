/** The gateway's settings (/api/admin/settings). */
import { settingsResponseSchema, type SettingsPatch } from '../../../shared/admin';
import type { Requester } from './request';

export function settingsApi(request: Requester) {
  return {
    settings: (signal?: AbortSignal) =>
      request.json(settingsResponseSchema, '/api/admin/settings', { signal }),
    updateSettings: (patch: SettingsPatch) =>
      request.json(settingsResponseSchema, '/api/admin/settings', { method: 'PUT', body: patch }),
  };
}
