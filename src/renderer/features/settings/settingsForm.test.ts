import { describe, expect, it } from 'vitest';
import type { Settings } from '../../../shared/admin';
import { errorField, settingsPatch, toForm } from './settingsForm';

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
