import { describe, expect, it } from 'vitest';
import type { AccountView } from '../../../shared/admin';
import { accountStatusView, loadShare } from './accountStatus';

const NOW = 1_000_000;
const account = (patch: Partial<AccountView> = {}): AccountView => ({
  id: 'a1',
  name: 'sim',
  kind: 'simulator',
  tier: 'api',
  groupName: 'default',
  capacity: 4,
  enabled: true,
  modelMap: {},
  maxPixels: 8_294_400,
  baseUrl: 'builtin:',
  issuer: null,
  bridgeModel: null,
  upstreamAccountId: null,
  disabledReason: null,
  cooldownUntil: null,
  cooldownReason: null,
  cooldownKind: null,
  createdAt: 0,
  status: { state: 'ready', detail: '' },
  load: 0,
  ...patch,
});

describe('accountStatusView', () => {
  it('counts a cooldown down with its reason', () => {
    const cooling = account({
      cooldownUntil: NOW + 600_000,
      cooldownReason: 'usage limit reached (429)',
      status: { state: 'cooling', detail: 'back in 10 min' },
    });
    expect(accountStatusView(cooling, NOW)).toEqual({
      tone: 'warn',
      label: 'Cooling down',
      reason: 'usage limit reached (429)',
      timeLeft: '10 min',
    });
    expect(accountStatusView(cooling, NOW + 599_000).timeLeft).toBe('1 s');
    expect(accountStatusView(cooling, NOW + 600_000).label).toBe('Ready');
  });

  it('says why an account is out of service, and shows disabled ones as off', () => {
    const broken = account({
      disabledReason: 'sign-in no longer valid',
      status: { state: 'out_of_service', detail: 'sign-in no longer valid' },
    });
    expect(accountStatusView(broken, NOW)).toMatchObject({
      tone: 'error',
      reason: broken.disabledReason,
    });
    const off = account({
      enabled: false,
      status: { state: 'disabled', detail: 'disabled by the user' },
    });
    expect(accountStatusView(off, NOW)).toMatchObject({ tone: 'off', label: 'Disabled' });
  });

  it('measures load against capacity', () => {
    expect(loadShare({ load: 2, capacity: 4 })).toBe(0.5);
    expect(loadShare({ load: 9, capacity: 4 })).toBe(1);
    expect(loadShare({ load: 1, capacity: 0 })).toBe(0);
  });
});
