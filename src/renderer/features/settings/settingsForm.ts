import type { Settings, SettingsPatch } from '../../../shared/admin';

/** The settings form as typed: timeouts in seconds, origins one per line. */
export interface SettingsForm {
  strictDelivery: boolean;
  fallbackLadder: boolean;
  injectImageTool: boolean;
  contentFilter: Settings['contentFilter'];
  bridgeModel: string;
  timeoutNormalS: string;
  timeoutLargeS: string;
  allowedOrigins: string;
  keepApiImages: boolean;
  serverHost: Settings['serverHost'];
  serverPort: string;
}

/** API field -> form field (they differ where the form shows friendlier units). */
export const FORM_FIELD: Record<keyof Settings, keyof SettingsForm> = {
  strictDelivery: 'strictDelivery',
  fallbackLadder: 'fallbackLadder',
  injectImageTool: 'injectImageTool',
  contentFilter: 'contentFilter',
  bridgeModel: 'bridgeModel',
  timeoutNormalMs: 'timeoutNormalS',
  timeoutLargeMs: 'timeoutLargeS',
  allowedOrigins: 'allowedOrigins',
  keepApiImages: 'keepApiImages',
  serverHost: 'serverHost',
  serverPort: 'serverPort',
};

export type SettingsErrors = Partial<Record<keyof SettingsForm, string>>;

export function toForm(s: Settings): SettingsForm {
  return {
    strictDelivery: s.strictDelivery,
    fallbackLadder: s.fallbackLadder,
    injectImageTool: s.injectImageTool,
    contentFilter: s.contentFilter,
    bridgeModel: s.bridgeModel,
    timeoutNormalS: String(s.timeoutNormalMs / 1000),
    timeoutLargeS: String(s.timeoutLargeMs / 1000),
    allowedOrigins: s.allowedOrigins.join('\n'),
    keepApiImages: s.keepApiImages,
    serverHost: s.serverHost,
    serverPort: String(s.serverPort),
  };
}

const origins = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * Only what changed, in the API's units. Timeouts that are not numbers are sent as they are
 * typed would be meaningless, so they are refused here; everything else (an origin with a path,
 * say) is left to the API, whose 400 names the field and is shown beside it.
 */
export function settingsPatch(
  form: SettingsForm,
  saved: Settings,
): { ok: true; patch: SettingsPatch } | { ok: false; errors: SettingsErrors } {
  const errors: SettingsErrors = {};
  const seconds = (value: string, field: 'timeoutNormalS' | 'timeoutLargeS') => {
    const n = Number(value.trim());
    if (!value.trim() || !Number.isFinite(n) || n < 1 || n > 3600) {
      errors[field] = 'A number of seconds from 1 to 3600';
      return 0;
    }
    return Math.round(n * 1000);
  };
  const normal = seconds(form.timeoutNormalS, 'timeoutNormalS');
  const large = seconds(form.timeoutLargeS, 'timeoutLargeS');
  if (!form.bridgeModel.trim()) errors.bridgeModel = 'Name a text model, e.g. agent-model-1';
  const port = Number(form.serverPort.trim());
  if (!/^\d+$/.test(form.serverPort.trim()) || port > 65535) {
    errors.serverPort = 'A port from 1 to 65535, or 0 for any free port';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const next: Settings = {
    strictDelivery: form.strictDelivery,
    fallbackLadder: form.fallbackLadder,
    injectImageTool: form.injectImageTool,
    contentFilter: form.contentFilter,
    bridgeModel: form.bridgeModel.trim(),
    timeoutNormalMs: normal,
    timeoutLargeMs: large,
    allowedOrigins: origins(form.allowedOrigins),
    keepApiImages: form.keepApiImages,
    serverHost: form.serverHost,
    serverPort: port,
  };
  const patch: Record<string, unknown> = {};
  for (const name of Object.keys(next) as Array<keyof Settings>) {
    if (JSON.stringify(next[name]) !== JSON.stringify(saved[name])) patch[name] = next[name];
  }
  return { ok: true, patch: patch as SettingsPatch };
}

/**
 * Where a 400's `param` belongs on the form: `allowedOrigins.1` is line 2 of the origins box.
 * Null when it names nothing on the form.
 */
export function errorField(
  param: string | null,
  message: string,
): { field: keyof SettingsForm; message: string } | null {
  if (!param) return null;
  const [head, index] = param.split('.');
  const field = FORM_FIELD[head as keyof Settings];
  if (!field) return null;
  if (head === 'allowedOrigins' && index !== undefined && /^\d+$/.test(index)) {
    return { field, message: `Line ${Number(index) + 1}: ${message}` };
  }
  return { field, message };
}

/**
 * The Port field's hint. A saved port applies from the next start (and a desktop app whose port
 * was taken serves on another), so when the saved port is not the one in use the hint says both,
 * rather than leave a number that looks wrong.
 */
export function portHint(savedPort: number, servingPort: number): string {
  if (savedPort === servingPort) return '0 takes any free port.';
  if (savedPort === 0) return `0 takes any free port; this run is on ${servingPort}.`;
  return `Saved for the next start; now serving on ${servingPort}.`;
}
