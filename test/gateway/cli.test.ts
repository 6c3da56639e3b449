import fs from 'node:fs';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli';
import { tempDir, simInit } from '../support/gateway';
import { decodeB64, diffByRegion, rectMask, testPicture } from '../support/images';

const dataDir = tempDir('atelier-cli-');
const servers: ServeProcess[] = [];
afterAll(() => {
  for (const s of servers) s.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('the atelier CLI, as a new user runs it', () => {
  let key = '';

  it('keys create prints the key alone on the last line', () => {
    const res = runCli(['keys', 'create', '--name', 'demo', '--data-dir', dataDir]);
    expect(res.status).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    key = lines[lines.length - 1]!;
    expect(key).toMatch(/^atl_[A-Za-z0-9]{40,}$/);
  });

  it('keys list never shows the key', () => {
    const res = runCli(['keys', 'list', '--data-dir', dataDir]);
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('demo');
    expect(res.stdout).not.toContain(key);
  });

  it('serve --port 0 serves the official client: a 1536x1024 WebP and a masked edit', async () => {
    const server = await startServe(['--port', '0', '--data-dir', dataDir]);
    servers.push(server);
    expect(server.output()).toMatch(/Offline simulator/);
    // A one-time studio login link, printed before the listening line scripts wait for.
    const login = /^ {2}studio login: (http:\/\/\S+\/login\?token=[\w-]{43})$/m.exec(
      server.output(),
    );
    expect(login).not.toBeNull();
    expect(login!.index).toBeLessThan(server.output().indexOf('listening on'));
    const signIn = await fetch(login![1]!, { redirect: 'manual' });
    expect([signIn.status, signIn.headers.get('location')]).toEqual([303, '/']);
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });

    const gen = await client.images.generate({
      model: 'image-model-2',
      prompt: 'a red tram in the rain',
      size: '1536x1024',
      output_format: 'webp',
    });
    const image = await decodeB64(gen.data![0]!.b64_json!);
    expect([image.width, image.height, image.format]).toEqual([1536, 1024, 'webp']);

    const source = await testPicture(1024, 1024);
    const hole = { left: 100, top: 600, width: 300, height: 250 };
    const edit = await client.images.edit({
      model: 'image-model-2',
      prompt: 'a cat on the sill',
      image: await toFile(source, 'room.png'),
      mask: await toFile(await rectMask(1024, 1024, hole), 'mask.png'),
    });
    const edited = await decodeB64(edit.data![0]!.b64_json!);
    const diff = diffByRegion(
      await sharp(source).ensureAlpha().raw().toBuffer(),
      edited.pixels,
      1024,
      hole,
    );
    expect(diff.outside).toBe(0);
    expect(diff.inside).toBeGreaterThan(0);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('SIGTERM lets an in-flight request finish before exiting', async () => {
    // A slow simulator makes the request still be running when the signal arrives.
    const server = await startServe([
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--simulator-speed',
      '1',
    ]);
    servers.push(server);
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const pending = client.images.generate({
      model: 'image-model-2',
      prompt: 'a slow sunrise',
      size: '1024x1024',
      quality: 'high',
    });
    // Signal only once the upstream call is under way.
    await waitForSimulatorCall(server);
    server.child.kill('SIGTERM');
    const res = await pending;
    expect(res.data).toHaveLength(1);
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('finishing in-flight requests');
  });

  it('a second SIGTERM exits at once, without waiting for the in-flight request', async () => {
    const server = await startServe([
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--simulator-speed',
      '1',
    ]);
    servers.push(server);
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const pending = client.images
      .generate({
        model: 'image-model-2',
        prompt: 'a slow dusk',
        size: '1024x1024',
        quality: 'high',
      })
      .then(
        () => 'finished',
        () => 'cut off',
      );
    await waitForSimulatorCall(server);
    server.child.kill('SIGTERM');
    await outputContaining(server, 'finishing in-flight requests');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(130);
    // The process ended while the request was still running, not after it.
    expect(await pending).toBe('cut off');
    expect(server.output()).toContain('SIGTERM again: exiting now.');
  });

  it('rejects an unknown command and bad flags with a usage message', () => {
    expect(runCli(['frobnicate']).status).toBe(2);
    const res = runCli(['serve', '--port', 'eighty']);
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('--port');
    const callback = runCli(['serve', '--oauth-callback-port', 'any']);
    expect(callback.status).toBe(2);
    expect(callback.stderr).toContain(
      '--oauth-callback-port must be a port number from 0 to 65535',
    );
    expect(callback.stderr).toContain('usage: atelier serve');
    const fromEnv = runCli(['serve'], { ATELIER_OAUTH_CALLBACK_PORT: '70000' });
    expect(fromEnv.status).toBe(2);
    expect(fromEnv.stderr).toContain('ATELIER_OAUTH_CALLBACK_PORT must be a port number');
  });
});

describe('atelier serve says where images go', () => {
  it('lists the accounts and groups that will serve, and no simulator they do not use', async () => {
    const dir = tempDir('atelier-serve-accounts-');
    const env = { ATELIER_SECRET_STORE: 'encrypted-file', ATELIER_SECRET_PASSPHRASE: 'test only' };
    try {
      const added = runCli(
        ['accounts', 'add-key', '--name', 'relay', '--base-url', 'https://relay.example/v1'],
        { ...env, ATELIER_ACCOUNT_KEY: 'sk-test-relay', ATELIER_DATA_DIR: dir },
      );
      expect(added.status, added.stderr).toBe(0);
      const spare = [
        'accounts',
        'add-key',
        '--name',
        'spare',
        '--base-url',
        'https://spare.example/v1',
      ];
      const addedSpare = runCli([...spare, '--group', 'studio', '--tier', 'api'], {
        ...env,
        ATELIER_ACCOUNT_KEY: 'sk-test-spare',
        ATELIER_DATA_DIR: dir,
      });
      expect(addedSpare.status, addedSpare.stderr).toBe(0);
      expect(runCli(['accounts', 'disable', 'spare', '--data-dir', dir]).status).toBe(0);

      const server = await startServe(['--port', '0', '--data-dir', dir], env);
      servers.push(server);
      const out = server.output();
      expect(out).not.toMatch(/Offline simulator/);
      expect(out).not.toMatch(/built-in simulator/);
      expect(out).toMatch(/upstream: 2 accounts \(1 ready\) in 2 groups/);
      expect(out).toMatch(
        /group default:\n {6}relay {2}api_key, tier api, https:\/\/relay\.example\/v1 {2}ready/,
      );
      expect(out).toMatch(
        /group studio:\n {6}spare {2}api_key, tier api, https:\/\/spare\.example\/v1 {2}disabled: disabled by the user/,
      );
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);

      // A simulator account: now the simulator is an upstream, and serve says so.
      expect(
        runCli([
          'accounts',
          'add-simulator',
          '--name',
          'practice',
          '--tier',
          'pro',
          '--data-dir',
          dir,
        ]).status,
      ).toBe(0);
      const again = await startServe(['--port', '0', '--data-dir', dir], env);
      servers.push(again);
      expect(again.output()).toMatch(
        /practice {2}simulator, tier pro, built-in simulator {2}ready/,
      );
      expect(again.output()).toMatch(
        /simulator accounts are served by the built-in simulator at http:/,
      );
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

/** Polls the simulator's own call log (the signal that the upstream call has started). */
async function waitForSimulatorCall(server: ServeProcess): Promise<void> {
  const simUrl = /Offline simulator \(.*\) at (http:\/\/\S+)/.exec(server.output())![1]!;
  for (;;) {
    const { calls } = (await (await fetch(`${simUrl}/__sim/calls`, simInit(simUrl))).json()) as {
      calls: unknown[];
    };
    if (calls.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves once the process has printed `text` (on either stream). */
function outputContaining(server: ServeProcess, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!server.output().includes(text)) return;
      server.child.stdout!.off('data', check);
      server.child.stderr!.off('data', check);
      resolve();
    };
    server.child.stdout!.on('data', check);
    server.child.stderr!.on('data', check);
    check();
  });
}
