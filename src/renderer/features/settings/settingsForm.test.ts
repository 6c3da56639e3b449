import { describe, expect, it } from 'vitest';
import type { Settings } from '../../../shared/admin';
import { errorField, settingsPatch, toForm, portHint } from './settingsForm';

const SAVED: Settings = {
  strictDelivery: false,
  fallbackLadder: false,
  injectImageTool: true,
  contentFilter: 'block',
  bridgeModel: 'agent-model-1',
  timeoutNormalMs: 180_000,
  timeoutLargeMs: 600_000,
  allowedOrigins: ['http://localhost:5173'],
  keepApiImages: true,
  serverHost: '127.0.0.1',
  serverPort: 8787,
};

describe('settings form', () => {
  it('sends only what changed, in the API units', () => {
    const form = toForm(SAVED);
    expect(form.timeoutNormalS).toBe('180');
    expect(settingsPatch(form, SAVED)).toEqual({ ok: true, patch: {} });
    const changed = {
      ...form,
      timeoutLargeS: '900',
      allowedOrigins: 'http://localhost:5173\n\n  http://localhost:3000 ',
      strictDelivery: true,
    };
    expect(settingsPatch(changed, SAVED)).toEqual({
      ok: true,
      patch: {
        strictDelivery: true,
        timeoutLargeMs: 900_000,
        allowedOrigins: ['http://localhost:5173', 'http://localhost:3000'],
      },
    });
  });

  it('refuses timeouts that are not seconds', () => {
    const result = settingsPatch({ ...toForm(SAVED), timeoutNormalS: 'soon' }, SAVED);
    expect(result).toEqual({
      ok: false,
      errors: { timeoutNormalS: 'A number of seconds from 1 to 3600' },
    });
  });

  it('sends a new address, and refuses a port that is not one', () => {
    const form = toForm(SAVED);
    expect(form.serverPort).toBe('8787');
    expect(settingsPatch({ ...form, serverHost: '::1', serverPort: ' 9000 ' }, SAVED)).toEqual({
      ok: true,
      patch: { serverHost: '::1', serverPort: 9000 },
    });
    expect(settingsPatch({ ...form, serverPort: '0' }, SAVED)).toEqual({
      ok: true,
      patch: { serverPort: 0 },
    });
    for (const bad of ['', 'http', '-1', '65536', '80.5']) {
      expect(settingsPatch({ ...form, serverPort: bad }, SAVED), bad).toEqual({
        ok: false,
        errors: { serverPort: 'A port from 1 to 65535, or 0 for any free port' },
      });
    }
  });

  it('puts an API error on the field its param names', () => {
    expect(errorField('allowedOrigins.1', 'an origin, no path')).toEqual({
      field: 'allowedOrigins',
      message: 'Line 2: an origin, no path',
    });
    expect(errorField('timeoutLargeMs', 'too big')).toEqual({
      field: 'timeoutLargeS',
      message: 'too big',
    });
    expect(errorField('body', 'x')).toBeNull();
  });
});

describe('portHint', () => {
  it('says why the saved port is not the one in use', () => {
    expect(portHint(8787, 8787)).toBe('0 takes any free port.');
    expect(portHint(9311, 8787)).toBe('Saved for the next start; now serving on 8787.');
    expect(portHint(0, 41234)).toBe('0 takes any free port; this run is on 41234.');
  });
});
