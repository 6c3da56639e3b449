import fs from 'node:fs';
import os from 'node:os';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { databasePath } from '../core/dataDir';
import { SETTINGS } from '../storage/settings';
import { openDatabase } from '../storage/db';
import { openSettingsRepository } from '../storage/settingsRepository';
import { sqliteEngine } from '../storage/sqliteEngine';
import type { CliIo } from './io';
import { runServeCommand } from './serve';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A terminal for `atelier serve`: what it printed, the line a person types, Ctrl+C. */
function terminal(interactive: boolean) {
  const out: string[] = [];
  const signals = new Map<string, () => void>();
  let typed: ((line: string) => void) | null = null;
  let listening = false;
  const io: CliIo = {
    stdout: (line) => out.push(line),
    stderr: () => undefined,
    env: {},
    onSignal: (signal, handler) => signals.set(signal, handler),
    onTerminalLine: (handler) => {
      if (!interactive) return null;
      typed = handler;
      listening = true;
      return () => (listening = false);
    },
  };
  return {
    io,
    out,
    type: (line: string) => typed?.(line),
    interrupt: () => signals.get('SIGINT')?.(),
    get listening() {
      return listening;
    },
    logins: () => out.filter((l) => l.includes('studio login:')).map((l) => l.split(': ')[1]!),
  };
}

/** A built studio's stand-in: serve only looks for its index.html and serves the folder. */
function tempStudioDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-studio-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Atelier</title>');
  return dir;
}

function tempDataDir(): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-serve-'));
  dirs.push(dataDir);
  return dataDir;
}

async function serve(
  t: ReturnType<typeof terminal>,
  dataDir = tempDataDir(),
  flags = ['--port', '0'],
) {
  const done = runServeCommand(
    [...flags, '--data-dir', dataDir, '--oauth-callback-port', '0'],
    t.io,
    { dir: tempStudioDir() },
  );
  await expect
    .poll(() => t.out.some((l) => l.startsWith('Atelier gateway listening on')))
    .toBe(true);
  // Wrapped: returning the promise itself would make the caller wait for the server to stop.
  return { done };
}

describe('atelier serve: studio login links', () => {
  it('prints a fresh one-time link each time Enter is pressed, without restarting', async () => {
    const t = terminal(true);
    const { done } = await serve(t);
    expect(t.out).toContain('  (press Enter here for a new studio login link)');
    const [first] = t.logins();
    // The first link is used up by one browser...
    expect((await fetch(first!, { redirect: 'manual' })).status).toBe(303);
    expect((await fetch(first!, { redirect: 'manual' })).status).toBe(401);
    // ...and a second browser gets its own from the terminal.
    t.type('');
    // The link is printed once its token is in the database.
    await expect.poll(() => t.logins().length).toBe(2);
    const second = t.logins()[1]!;
    expect(second).not.toBe(first);
    const res = await fetch(second, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/^atelier_session_\d+=/);
    // The link leads to the studio, not to a 404.
    const studio = await fetch(new URL(res.headers.get('location')!, second), {
      headers: { cookie: res.headers.get('set-cookie')!.split(';')[0]! },
    });
    expect(studio.status).toBe(200);
    expect(await studio.text()).toContain('<title>Atelier</title>');

    t.interrupt();
    expect(await done).toBe(0);
    expect(t.listening).toBe(false);
  });

  it('says nothing of Enter when no one is at a terminal (a script, a service)', async () => {
    const t = terminal(false);
    const { done } = await serve(t);
    expect(t.out.join('\n')).not.toContain('press Enter');
    expect(t.logins()).toHaveLength(1);
    t.interrupt();
    expect(await done).toBe(0);
  });
});

describe('atelier serve: without a built studio', () => {
  it('prints no login link when the studio cannot be built, and says what to do', async () => {
    const t = terminal(false);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-nostudio-'));
    dirs.push(empty);
    const done = runServeCommand(
      ['--port', '0', '--data-dir', tempDataDir(), '--oauth-callback-port', '0'],
      t.io,
      { dir: path.join(empty, 'out', 'renderer') },
    );
    await expect
      .poll(() => t.out.some((l) => l.startsWith('Atelier gateway listening on')))
      .toBe(true);
    expect(t.logins()).toHaveLength(0);
    expect(t.out.find((l) => l.includes('studio:'))).toMatch(/not served: .*npm run build/);
    t.interrupt();
    expect(await done).toBe(0);
  });
});

describe('atelier serve: the address saved in Settings', () => {
  /** A port nothing listens on right now. */
  async function freePort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  async function saveAddress(dataDir: string, port: number) {
    const engine = sqliteEngine(openDatabase(databasePath(dataDir)));
    await (await openSettingsRepository(engine)).set(SETTINGS.serverPort, port);
    await engine.close();
  }

  const listeningOn = (t: ReturnType<typeof terminal>) =>
    t.out.find((l) => l.startsWith('Atelier gateway listening on'))!.split(' on ')[1];

  it('listens on the saved port when no --port is given', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    await saveAddress(dataDir, port);
    const t = terminal(false);
    const { done } = await serve(t, dataDir, []);
    expect(listeningOn(t)).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`http://127.0.0.1:${port}/v1/models`)).status).toBe(401);
    t.interrupt();
    expect(await done).toBe(0);
  });

  it('lets --port win over the saved one for this run', async () => {
    const dataDir = tempDataDir();
    const saved = await freePort();
    await saveAddress(dataDir, saved);
    const t = terminal(false);
    const { done } = await serve(t, dataDir, ['--port', '0']);
    expect(listeningOn(t)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(listeningOn(t)).not.toBe(`http://127.0.0.1:${saved}`);
    t.interrupt();
    expect(await done).toBe(0);
  });
});
