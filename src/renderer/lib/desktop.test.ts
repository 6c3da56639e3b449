import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSignIn } from './desktop';

const LOGIN = 'login_0123456789abcdef01234567';
const AUTHORIZE = 'https://auth.example/oauth/authorize?state=s';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('openSignIn', () => {
  it('asks the desktop shell by sign-in id, never handing it the address', async () => {
    const desktop = { openSignIn: vi.fn(async (_loginId: string) => {}) };
    const open = vi.fn();
    vi.stubGlobal('window', { atelier: desktop, open });
    await openSignIn(LOGIN, AUTHORIZE);
    expect(desktop.openSignIn.mock.calls).toEqual([[LOGIN]]);
    expect(open).not.toHaveBeenCalled();
  });

  it('passes on the shell refusing, so the dialog can say so', async () => {
    const desktop = {
      openSignIn: vi.fn(async () => {
        throw new Error('no sign-in is waiting');
      }),
    };
    vi.stubGlobal('window', { atelier: desktop, open: vi.fn() });
    await expect(openSignIn(LOGIN, AUTHORIZE)).rejects.toThrow(/no sign-in is waiting/);
  });

  it('opens a new tab without an opener in a plain browser', async () => {
    const open = vi.fn();
    vi.stubGlobal('window', { open });
    await openSignIn(LOGIN, AUTHORIZE);
    expect(open.mock.calls).toEqual([[AUTHORIZE, '_blank', 'noopener,noreferrer']]);
  });
});
