import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';

/**
 * The desktop app as a person starts it: the built app (out/main) in real Electron with a fresh
 * data folder. Run by `npm run test:desktop` where Electron's binary exists
 * (scripts/test-desktop.mjs passes its path); never on machines that cannot download it.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
/** src/main/index.ts QUIT_GRACE_MS, plus the time to close the database and exit. */
const QUIT_WITHIN_MS = 10_000;

test('starts signed in, serves /v1 to a key made in it, and quits cleanly', async () => {
  const executablePath = process.env.ATELIER_ELECTRON_BINARY;
  test.skip(!executablePath, 'run through npm run test:desktop, which finds Electron');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-desktop-'));
  const args = ['.'];
  // Chromium refuses to start its sandbox as root (CI containers): the window stays isolated.
  if (process.getuid?.() === 0) args.unshift('--no-sandbox');
  const app = await electron.launch({
    executablePath,
    args,
    cwd: ROOT,
    env: { ...process.env, ATELIER_DATA_DIR: dataDir, ELECTRON_RUN_AS_NODE: '' },
  });
  try {
    const window = await app.firstWindow();
    // The one-time login link signs the window in, then the studio's home page is ready.
    await expect(window.getByTestId('page-home')).toHaveAttribute('data-ready', 'true');
    const origin = new URL(window.url()).origin;
    expect(new URL(origin).hostname).toBe('127.0.0.1');

    // A key made in the app, as the Keys page makes it (the studio session, same origin).
    const made = await window.evaluate(async () => {
      const res = await fetch('/api/admin/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-atelier-studio': '1' },
        body: JSON.stringify({ name: 'desktop smoke test' }),
      });
      return { status: res.status, body: (await res.json()) as { key: string } };
    });
    expect(made.status).toBe(200);
    const models = await fetch(`${origin}/v1/models`, {
      headers: { authorization: `Bearer ${made.body.key}` },
    });
    expect(models.status).toBe(200);
    const list = (await models.json()) as { data: { id: string }[] };
    expect(list.data.map((m) => m.id)).toContain('image-model-2');
    // The database is in the folder the app was given.
    expect(fs.existsSync(path.join(dataDir, 'atelier.db'))).toBe(true);

    const quitting = Date.now();
    await app.close();
    expect(Date.now() - quitting).toBeLessThan(QUIT_WITHIN_MS);
  } finally {
    await app.close().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
