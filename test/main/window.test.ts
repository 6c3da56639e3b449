import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeElectron, fakeEvent, type FakeElectron } from './fakeElectron';

const GATEWAY = 'http://127.0.0.1:8787';
let electron: FakeElectron;

beforeEach(() => {
  vi.resetModules();
  // Stand-in for `electron`: its binary cannot be downloaded or run here (see fakeElectron.ts).
  electron = createFakeElectron();
  vi.doMock('electron', () => electron);
});

async function openWindow() {
  const { createMainWindow } = await import('../../src/main/window');
  createMainWindow(`${GATEWAY}/`, '/app/out/preload/index.cjs');
  const window = electron.windows[0]!;
  return { window, contents: window.webContents };
}

describe('createMainWindow', () => {
  it('uses an isolated, sandboxed renderer with the preload and loads the gateway', async () => {
    const { window } = await openWindow();
    expect(window.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      preload: '/app/out/preload/index.cjs',
    });
    expect(window.loadURL).toHaveBeenCalledWith(`${GATEWAY}/`);
  });

  it('denies every new window and opens only allow-listed links externally', async () => {
    const { contents } = await openWindow();
    const handler = contents.windowOpenHandler!;
    expect(handler({ url: 'https://github.com/atelier' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(handler({ url: `${GATEWAY}/popup` })).toEqual({ action: 'deny' });
    expect(electron.shell.openExternal.mock.calls).toEqual([['https://github.com/atelier']]);
  });

  it('prevents navigation away from the gateway origin', async () => {
    const { contents } = await openWindow();
    const inside = fakeEvent({ url: `${GATEWAY}/gallery` });
    const outside = fakeEvent({ url: 'https://evil.example/' });
    const allowListed = fakeEvent({ url: 'https://github.com/atelier' });
    contents.emit('will-navigate', inside);
    contents.emit('will-navigate', outside);
    contents.emit('will-navigate', allowListed);
    expect(inside.defaultPrevented).toBe(false);
    expect(outside.defaultPrevented).toBe(true);
    expect(allowListed.defaultPrevented).toBe(true);
    expect(electron.shell.openExternal.mock.calls).toEqual([['https://github.com/atelier']]);
  });

  it('keeps server redirects and frames on the gateway too', async () => {
    const { contents } = await openWindow();
    const redirectInside = fakeEvent({ url: `${GATEWAY}/gallery` });
    const redirectOutside = fakeEvent({ url: 'https://evil.example/' });
    const redirectAllowListed = fakeEvent({ url: 'https://github.com/atelier' });
    contents.emit('will-redirect', redirectInside);
    contents.emit('will-redirect', redirectOutside);
    contents.emit('will-redirect', redirectAllowListed);
    expect(redirectInside.defaultPrevented).toBe(false);
    expect(redirectOutside.defaultPrevented).toBe(true);
    expect(redirectAllowListed.defaultPrevented).toBe(true);
    const frameInside = fakeEvent({ url: `${GATEWAY}/x`, isMainFrame: false });
    const frameOutside = fakeEvent({ url: 'https://github.com/atelier', isMainFrame: false });
    contents.emit('will-frame-navigate', frameInside);
    contents.emit('will-frame-navigate', frameOutside);
    expect(frameInside.defaultPrevented).toBe(false);
    // Even an allow-listed site: a frame never opens anything.
    expect(frameOutside.defaultPrevented).toBe(true);
    expect(electron.shell.openExternal.mock.calls).toEqual([['https://github.com/atelier']]);
  });

  it('refuses to attach webviews', async () => {
    const { contents } = await openWindow();
    const event = fakeEvent();
    contents.emit('will-attach-webview', event);
    expect(event.defaultPrevented).toBe(true);
  });

  it('sets the Content-Security-Policy header on gateway responses only', async () => {
    const { contents } = await openWindow();
    const listener = contents.session.headersListener!;
    const answer = (url: string) => {
      let response: { responseHeaders?: Record<string, string | string[]> } | undefined;
      listener({ url, responseHeaders: { 'Content-Type': ['text/html'] } }, (r) => (response = r));
      return response;
    };
    const headers = answer(`${GATEWAY}/`)?.responseHeaders;
    expect(headers).toMatchObject({ 'Content-Type': ['text/html'] });
    const [csp] = headers!['Content-Security-Policy'] as string[];
    for (const directive of [
      "default-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "object-src 'none'",
    ]) {
      expect(csp!.split('; ')).toContain(directive);
    }
    expect(answer('https://elsewhere.example/')).toEqual({});
  });

  it('grants the clipboard write permission to the gateway and nothing else', async () => {
    const { contents } = await openWindow();
    const decide = (permission: string, requestingUrl: string) => {
      let granted: boolean | undefined;
      contents.session.permissionHandler!(contents, permission, (g) => (granted = g), {
        requestingUrl,
      });
      return granted;
    };
    expect(decide('clipboard-sanitized-write', `${GATEWAY}/`)).toBe(true);
    expect(decide('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(decide('geolocation', `${GATEWAY}/`)).toBe(false);
    expect(decide('media', `${GATEWAY}/`)).toBe(false);
  });

  it('answers permission checks the same way, and grants no device', async () => {
    const { contents } = await openWindow();
    const check = contents.session.permissionCheckHandler!;
    expect(check(contents, 'clipboard-sanitized-write', GATEWAY)).toBe(true);
    expect(check(contents, 'clipboard-sanitized-write', 'https://evil.example')).toBe(false);
    for (const permission of ['notifications', 'geolocation', 'media', 'hid', 'serial', 'usb']) {
      expect(check(contents, permission, GATEWAY)).toBe(false);
    }
    expect(contents.session.deviceHandler!({ deviceType: 'usb', origin: GATEWAY })).toBe(false);
  });

  it('shows the window once it is ready to paint', async () => {
    const { window } = await openWindow();
    expect(window.show).not.toHaveBeenCalled();
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalledOnce();
  });
});
