import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeElectron, type FakeElectron } from './fakeElectron';

const GATEWAY = 'http://127.0.0.1:8787';
const fromStudio = { senderFrame: { url: `${GATEWAY}/accounts` } };
const fromElsewhere = { senderFrame: { url: 'https://evil.example/' } };
const OPEN_SIGN_IN = 'atelier:open-sign-in';

const WAITING = 'login_0123456789abcdef01234567';
const AUTHORIZE = 'https://auth.example/oauth/authorize?client_id=c&state=s';
/** Stand-in for the gateway's signInIssuers (accounts/signInIssuers.ts has its own test). */
const ISSUERS = ['https://auth.example', 'http://127.0.0.1:41234'];

let electron: FakeElectron;
/** Stand-in for the gateway's pending sign-ins (its own tests cover the real ones over HTTP). */
let signInUrl: ReturnType<typeof vi.fn<(loginId: string) => string | null>>;

beforeEach(async () => {
  vi.resetModules();
  // Stand-in for `electron`: its binary cannot be downloaded or run here (see fakeElectron.ts).
  electron = createFakeElectron();
  vi.doMock('electron', () => electron);
  signInUrl = vi.fn((loginId: string) => (loginId === WAITING ? AUTHORIZE : null));
  const { registerSignInHandler } = await import('../../src/main/signIn');
  registerSignInHandler({ origin: GATEWAY, signInUrl, issuers: () => ISSUERS });
});

function openSignIn(event: unknown, loginId: unknown) {
  const handler = electron.ipcHandlers.get(OPEN_SIGN_IN);
  if (!handler) throw new Error(`no handler for ${OPEN_SIGN_IN}`);
  return Promise.resolve().then(() => handler(event, loginId));
}

describe('open sign-in', () => {
  it('opens the authorize page the gateway holds for a waiting sign-in', async () => {
    await openSignIn(fromStudio, WAITING);
    expect(signInUrl).toHaveBeenCalledExactlyOnceWith(WAITING);
    expect(electron.shell.openExternal.mock.calls).toEqual([[AUTHORIZE]]);
  });

  it('refuses a sign-in the gateway is not waiting on', async () => {
    await expect(openSignIn(fromStudio, 'login_ffffffffffffffffffffffff')).rejects.toThrow(
      /no sign-in is waiting/,
    );
    expect(electron.shell.openExternal).not.toHaveBeenCalled();
  });

  it.each([
    ['a URL', 'https://evil.example/'],
    ['no id', undefined],
    ['a number', 42],
    ['an id of another shape', 'login_../../x'],
    ['an overlong id', `login_${'a'.repeat(100)}`],
  ])('refuses %s without asking the gateway', async (_case, loginId) => {
    await expect(openSignIn(fromStudio, loginId)).rejects.toThrow(/loginId/);
    expect(signInUrl).not.toHaveBeenCalled();
    expect(electron.shell.openExternal).not.toHaveBeenCalled();
  });

  it('refuses callers from another origin', async () => {
    await expect(openSignIn(fromElsewhere, WAITING)).rejects.toThrow(/untrusted/);
    expect(signInUrl).not.toHaveBeenCalled();
    expect(electron.shell.openExternal).not.toHaveBeenCalled();
  });

  it.each([
    ['neither https nor on this machine', 'http://issuer.example/oauth/authorize'],
    ['at an issuer no account uses (a page chose it)', 'https://evil.example/oauth/authorize'],
    ['on this machine but not a known issuer', 'http://127.0.0.1:9999/oauth/authorize'],
  ])('refuses an address %s', async (_case, url) => {
    signInUrl.mockReturnValueOnce(url);
    await expect(openSignIn(fromStudio, WAITING)).rejects.toThrow(/known issuer/);
    expect(electron.shell.openExternal).not.toHaveBeenCalled();
  });

  it('opens the offline simulator’s sign-in on this machine', async () => {
    signInUrl.mockReturnValueOnce('http://127.0.0.1:41234/oauth/authorize?state=s');
    await openSignIn(fromStudio, WAITING);
    expect(electron.shell.openExternal.mock.calls).toEqual([
      ['http://127.0.0.1:41234/oauth/authorize?state=s'],
    ]);
  });
});
