import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeychainUnavailableError } from '../../src/gateway/secrets/errors';
import { createFakeElectron, type FakeElectron } from './fakeElectron';

const GATEWAY_URL = 'http://127.0.0.1:8787';
/** The stand-in's one-time studio login links: a new one for every window. */
let logins = 0;
const loginUrl = (n: number) => `${GATEWAY_URL}/login?token=t${n}`;

/** The stand-in gateway's one sign-in waiting for the browser. */
const PENDING_LOGIN = 'login_00112233445566778899aabb';
const AUTHORIZE_URL = 'https://auth.example/oauth/authorize?state=s';

let electron: FakeElectron;
let closeGateway: ReturnType<typeof vi.fn<(graceMs?: number) => Promise<void>>>;
let createGateway: ReturnType<typeof vi.fn>;
let savedListenAddress: ReturnType<typeof vi.fn>;
let resetListenAddress: ReturnType<typeof vi.fn>;

beforeEach(() => {
  vi.resetModules();
  vi.stubEnv('ATELIER_DATA_DIR', '');
  vi.stubEnv('ATELIER_OAUTH_CALLBACK_PORT', '');
  // Stand-in for `electron`: its binary cannot be downloaded or run here (see fakeElectron.ts).
  electron = createFakeElectron();
  vi.doMock('electron', () => electron);
  // Stand-in for the gateway: main only composes it, and the real gateway has its own tests
  // over real HTTP (test/gateway). Here we check what main asks of it, and in which order.
  closeGateway = vi.fn(async (_graceMs?: number) => {});
  logins = 0;
  createGateway = vi.fn(async () => ({
    url: GATEWAY_URL,
    listen: vi.fn(async () => GATEWAY_URL),
    createStudioLogin: vi.fn(async () => loginUrl(++logins)),
    signInUrl: vi.fn((loginId: string) => (loginId === PENDING_LOGIN ? AUTHORIZE_URL : null)),
    signInIssuers: vi.fn(() => ['https://auth.example']),
    close: closeGateway,
  }));
  // The address saved in Settings (a real read of SQLite in the gateway's own tests).
  savedListenAddress = vi.fn(async () => ({ host: '127.0.0.1', port: 8787 }));
  resetListenAddress = vi.fn(async () => {});
  vi.doMock('../../src/gateway', () => ({ createGateway, savedListenAddress, resetListenAddress }));
});

/** Runs the composition root (src/main/index.ts) as Electron would, and waits for startup. */
async function startMain() {
  const { started } = await import('../../src/main/index');
  await started;
}

describe('startup', () => {
  it('starts the gateway on 127.0.0.1 in userData, then opens the window on a login link', async () => {
    await startMain();
    expect(createGateway).toHaveBeenCalledOnce();
    const config = createGateway.mock.calls[0]?.[0] as Record<string, unknown>;
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8787, dataDir: '/fake/userData' });
    // The gateway's own default (1455) for sign-ins started in the window.
    expect(config.oauthCallbackPort).toBeUndefined();
    expect(config.staticDir).toMatch(/[/\\]renderer$/);
    expect(electron.app.getPath).toHaveBeenCalledWith('userData');

    const window = electron.windows[0]!;
    // The window signs in with a one-time link, which sets the studio's session cookie.
    expect(window.loadURL).toHaveBeenCalledWith(loginUrl(1));
    expect(window.options.webPreferences).toMatchObject({
      preload: expect.stringMatching(/[/\\]preload[/\\]index\.cjs$/),
    });
    expect([...electron.ipcHandlers.keys()].sort()).toEqual([
      'atelier:open-sign-in',
      'atelier:reveal-in-folder',
      'atelier:save-file',
      'atelier:start-drag',
    ]);
    expect(electron.trays[0]?.toolTip).toContain(GATEWAY_URL);
  });

  it('opens a studio sign-in in the system browser with the address the gateway holds', async () => {
    await startMain();
    const openSignIn = electron.ipcHandlers.get('atelier:open-sign-in')!;
    const fromStudio = { senderFrame: { url: `${GATEWAY_URL}/accounts` } };
    await openSignIn(fromStudio, PENDING_LOGIN);
    expect(electron.shell.openExternal.mock.calls).toEqual([[AUTHORIZE_URL]]);
    await expect(
      Promise.resolve().then(() => openSignIn(fromStudio, 'login_ffffffffffffffffffffffff')),
    ).rejects.toThrow(/no sign-in is waiting/);
    expect(electron.shell.openExternal).toHaveBeenCalledOnce();
  });

  it('uses ATELIER_DATA_DIR when set, like the CLI', async () => {
    vi.stubEnv('ATELIER_DATA_DIR', '/data/atelier');
    await startMain();
    expect(createGateway.mock.calls[0]?.[0]).toMatchObject({ dataDir: '/data/atelier' });
  });

  it('takes the sign-in callback port from ATELIER_OAUTH_CALLBACK_PORT, like the CLI', async () => {
    vi.stubEnv('ATELIER_OAUTH_CALLBACK_PORT', '2455');
    await startMain();
    expect(createGateway.mock.calls[0]?.[0]).toMatchObject({ oauthCallbackPort: 2455 });
  });

  it('refuses to start with a callback port that is not a port, and says why', async () => {
    vi.stubEnv('ATELIER_OAUTH_CALLBACK_PORT', 'auto');
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await startMain();
    expect(createGateway).not.toHaveBeenCalled();
    expect(electron.app.exit).toHaveBeenCalledWith(1);
    expect(electron.dialog.showMessageBox).toHaveBeenCalledWith(
      expect.objectContaining({
        title: 'Atelier could not start',
        detail: expect.stringMatching(/ATELIER_OAUTH_CALLBACK_PORT must be a port number/),
      }),
    );
  });
});

describe('single instance', () => {
  it('quits without starting anything when another instance holds the lock', async () => {
    electron.app.hasLock = false;
    await startMain();
    expect(electron.app.quit).toHaveBeenCalled();
    expect(createGateway).not.toHaveBeenCalled();
    expect(electron.windows).toHaveLength(0);
  });

  it('focuses the existing window when a second instance starts', async () => {
    await startMain();
    const window = electron.windows[0]!;
    window.minimized = true;
    electron.app.emit('second-instance', {}, [], '/');
    expect(window.restore).toHaveBeenCalled();
    expect(window.focus).toHaveBeenCalled();
    expect(electron.windows).toHaveLength(1);
  });

  it('signs a reopened window in with a fresh one-time link (a used one never works again)', async () => {
    await startMain();
    const first = electron.windows[0]!;
    first.destroyed = true;
    first.emit('closed');
    electron.app.emit('activate');
    // The window opens once its login link is issued (the gateway writes it to its database):
    // awaiting the same issue runs after main's own continuation.
    const gateway = (await createGateway.mock.results[0]!.value) as {
      createStudioLogin: ReturnType<typeof vi.fn>;
    };
    await gateway.createStudioLogin.mock.results[1]!.value;
    expect(electron.windows).toHaveLength(2);
    expect(electron.windows[1]!.loadURL).toHaveBeenCalledWith(loginUrl(2));
  });
});

describe('quitting', () => {
  it('closes the gateway before the process exits', async () => {
    let finishClose!: () => void;
    closeGateway.mockImplementationOnce(() => new Promise<void>((r) => (finishClose = r)));
    await startMain();

    electron.app.quit();
    expect(closeGateway).toHaveBeenCalledExactlyOnceWith(5_000);
    expect(electron.app.exit).not.toHaveBeenCalled();
    expect(electron.trays[0]?.toolTip).toContain('Stopping');

    electron.app.quit(); // a second request while stopping does not close twice
    expect(closeGateway).toHaveBeenCalledOnce();

    finishClose();
    expect(await electron.app.exited).toBe(0);
  });

  it('still exits, with status 1, when the gateway fails to close', async () => {
    closeGateway.mockRejectedValueOnce(new Error('disk gone'));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await startMain();
    electron.app.quit();
    expect(await electron.app.exited).toBe(1);
  });

  it('quits when the last window closes (except on macOS)', async () => {
    await startMain();
    electron.app.emit('window-all-closed');
    if (process.platform === 'darwin') expect(electron.app.quit).not.toHaveBeenCalled();
    else expect(electron.app.quit).toHaveBeenCalled();
  });

  it('serves on a free port when 8787 is taken by another program, and the tray says so', async () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use'), {
      code: 'EADDRINUSE',
    });
    const moved = 'http://127.0.0.1:50123';
    createGateway.mockImplementationOnce(async () => ({
      listen: vi.fn(async () => Promise.reject(inUse)),
      close: closeGateway,
    }));
    createGateway.mockImplementationOnce(async () => ({
      url: moved,
      listen: vi.fn(async () => moved),
      createStudioLogin: vi.fn(async () => `${moved}/login?token=t1`),
      signInUrl: vi.fn(() => null),
      close: closeGateway,
    }));
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await startMain();
    expect(createGateway.mock.calls.map(([config]) => (config as { port: number }).port)).toEqual([
      8787, 0,
    ]);
    // The first one never listened: closed at once, releasing its database for the second.
    expect(closeGateway).toHaveBeenCalledExactlyOnceWith(0);
    expect(electron.app.exit).not.toHaveBeenCalled();
    expect(electron.windows[0]!.loadURL).toHaveBeenCalledWith(`${moved}/login?token=t1`);
    expect(electron.trays[0]?.toolTip).toBe(
      `Atelier: Gateway running at ${moved} (port 8787 is in use)`,
    );
  });

  it('serves on the address saved in Settings, read from its data folder', async () => {
    savedListenAddress.mockResolvedValueOnce({ host: '::1', port: 9123 });
    await startMain();
    expect(savedListenAddress).toHaveBeenCalledExactlyOnceWith('/fake/userData');
    expect(createGateway.mock.calls[0]?.[0]).toMatchObject({ host: '::1', port: 9123 });
  });

  it('exits with status 1 when the gateway cannot start', async () => {
    createGateway.mockRejectedValueOnce(new Error('something unexpected'));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await startMain();
    expect(electron.app.exit).toHaveBeenCalledWith(1);
    expect(electron.dialog.showMessageBox).toHaveBeenCalledWith(
      expect.objectContaining({
        title: 'Atelier could not start',
        detail: expect.stringContaining('Cause: something unexpected'),
        buttons: ['Open Data Folder', 'Quit'],
      }),
    );
    expect(electron.windows).toHaveLength(0);
  });
});

/**
 * A failed start, as a person meets it: the box says what happened and what to do, and its
 * buttons work. Each failure is the real error its cause produces (a real SQLite lock, a real
 * file in the way, a real listen on an address this machine does not have, the keychain error).
 */
describe('startup failures a person can act on', () => {
  let work: string;
  beforeEach(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-start-fail-'));
    vi.stubEnv('ATELIER_DATA_DIR', path.join(work, 'data'));
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });
  afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

  const dialogShown = () =>
    electron.dialog.showMessageBox.mock.calls[0]![0] as unknown as {
      message: string;
      detail: string;
      buttons: string[];
    };

  it('the database held by another Atelier: says so, opens the data folder on request', async () => {
    const file = path.join(work, 'locked.db');
    const holder = new Database(file);
    holder.exec('CREATE TABLE t (x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1);');
    const second = new Database(file, { timeout: 0 });
    const busy = (() => {
      try {
        second.exec('INSERT INTO t VALUES (2)');
      } catch (error) {
        return error;
      }
    })();
    holder.close();
    second.close();
    expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
    createGateway.mockRejectedValueOnce(busy);
    electron.dialog.showMessageBox.mockResolvedValueOnce({ response: 0 });
    await startMain();
    expect(dialogShown().message).toBe('Another Atelier is using the database in its data folder.');
    expect(dialogShown().detail).toContain('atelier serve');
    expect(dialogShown().buttons).toEqual(['Open Data Folder', 'Quit']);
    expect(electron.shell.openPath).toHaveBeenCalledWith(path.join(work, 'data'));
    expect(electron.app.exit).toHaveBeenCalledWith(1);
  });

  it('a data folder that cannot be written: names it and how to fix it', async () => {
    // A file where the folder should be: creating the database fails as on a read-only disk.
    fs.writeFileSync(path.join(work, 'data'), 'not a folder');
    const notWritable = (() => {
      try {
        fs.mkdirSync(path.join(work, 'data', 'sub'), { recursive: true });
      } catch (error) {
        return error;
      }
    })();
    createGateway.mockRejectedValueOnce(notWritable);
    await startMain();
    expect(dialogShown().message).toBe('Atelier cannot write to its data folder.');
    expect(dialogShown().detail).toContain(path.join(work, 'data'));
    expect(dialogShown().detail).toContain('ATELIER_DATA_DIR');
    // Quit was chosen: nothing opened.
    expect(electron.shell.openPath).not.toHaveBeenCalled();
    expect(electron.app.exit).toHaveBeenCalledWith(1);
  });

  it('an address the system refuses: offers to reset it and restarts', async () => {
    // 192.0.2.1 (TEST-NET-1) is on no interface of this machine: listen() fails at once,
    // no packet is sent.
    const server = net.createServer();
    const refused = await new Promise<unknown>((resolve) => {
      server.once('error', resolve);
      server.listen(8787, '192.0.2.1', () => resolve(undefined));
    });
    server.close();
    expect((refused as { code?: string }).code).toBe('EADDRNOTAVAIL');
    savedListenAddress.mockResolvedValueOnce({ host: '192.0.2.1', port: 8787 });
    createGateway.mockResolvedValueOnce({
      listen: vi.fn(async () => {
        throw refused;
      }),
      close: closeGateway,
    });
    electron.dialog.showMessageBox.mockResolvedValueOnce({ response: 0 });
    await startMain();
    expect(dialogShown().message).toBe(
      'Atelier could not serve on 192.0.2.1:8787: that address is not available on this computer.',
    );
    expect(dialogShown().buttons).toEqual(['Reset Address and Restart', 'Quit']);
    expect(resetListenAddress).toHaveBeenCalledExactlyOnceWith(path.join(work, 'data'));
    expect(electron.app.relaunch).toHaveBeenCalledOnce();
    expect(electron.app.exit).toHaveBeenCalledWith(0);
  });

  it('no keychain: shows the keychain’s own advice for this platform', async () => {
    createGateway.mockRejectedValueOnce(
      new KeychainUnavailableError('no Secret Service on the session bus', 'linux'),
    );
    await startMain();
    expect(dialogShown().message).toBe(
      'Atelier cannot reach the system keychain, where it keeps account sign-ins.',
    );
    expect(dialogShown().detail).toContain('ATELIER_SECRET_STORE=encrypted-file');
    expect(dialogShown().buttons).toEqual(['Quit']);
    expect(electron.app.exit).toHaveBeenCalledWith(1);
  });
});
