import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway';
import { openAccountsRepository } from '../../src/gateway/accounts/repository';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openSecretStore } from '../../src/gateway/secrets';
import { readAccountSecret } from '../../src/gateway/secrets/accountSecret';
import { openDatabase, type Db } from '../../src/gateway/storage/db';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { startSimulator, type Simulator } from '../../src/simulator';
import { runCli } from '../support/cli';
import { tempDir } from '../support/gateway';
import { decodeB64 } from '../support/images';

// Runs against the real keychain (gnome-keyring under scripts/with-keyring.sh, as `npm test` does).
let sim: Simulator;
let gateway: Gateway;
let db: Db;
let client: OpenAI;
const dataDir = tempDir('atelier-sub-');

/** The real `atelier accounts login`, with the simulator as issuer and "the browser" a fetch. */
async function cliLogin(name: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      path.resolve('bin/atelier.mjs'),
      'accounts',
      'login',
      '--name',
      name,
      '--issuer',
      sim.url,
      '--base-url',
      `${sim.url}/backend-api/codex`,
      '--bridge-model',
      'agent-model-1',
      '--port',
      '0',
      '--no-browser',
      '--data-dir',
      dataDir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /^\s+(http\S+oauth\/authorize\S+)$/m.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`login exited early:\n${out}`)));
  });
  // The person signs in as the same user each time (the simulator maps login_hint to an identity).
  const page = await fetch(`${url}&login_hint=artist%40example.com`, { redirect: 'follow' });
  expect(page.status).toBe(200);
  expect(await exited).toBe(0);
  return out;
}

beforeAll(async () => {
  sim = await startSimulator({ speed: 0, planType: 'pro' });
});
afterAll(async () => {
  await gateway?.close(1_000);
  db?.close();
  await sim.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('subscription accounts', () => {
  it('atelier accounts login signs in with PKCE and stores the tokens in the keychain, not SQLite', async () => {
    const out = await cliLogin('my-sub');
    expect(out).toMatch(/Added subscription account acct_\w+ "my-sub" .*plan pro.*keychain/);
    db = openDatabase(databasePath(dataDir));
    const [account] = await (await openAccountsRepository(sqliteEngine(db))).list();
    expect(account).toMatchObject({ kind: 'subscription', tier: 'pro', maxPixels: 1_638_400 });
    expect(account!.upstreamAccountId).toBeTruthy();
    const secret = await readAccountSecret(
      await openSecretStore({ dataDir, env: process.env }),
      account!.secretName!,
    );
    expect(secret?.type).toBe('oauth');
    // No token in the database file.
    db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = fs.readFileSync(databasePath(dataDir)).toString('latin1');
    if (secret?.type !== 'oauth') throw new Error('no tokens');
    expect(bytes).not.toContain(secret.refreshToken);
    expect(bytes).not.toContain(secret.accessToken.slice(-40));
  });

  it('serves images through the native channel with the account header', async () => {
    const { key } = await createKeysRepository(sqliteEngine(db)).create({ name: 'app' });
    gateway = await createGateway({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      simulatorSpeed: 0,
      log: () => undefined,
    });
    client = new OpenAI({ apiKey: key, baseURL: `${await gateway.listen()}/v1`, maxRetries: 0 });
    sim.calls.length = 0;
    const res = await client.images.generate({
      model: 'image-model-2',
      prompt: 'a paper boat',
      size: '1024x1024',
      quality: 'medium',
      output_format: 'webp',
    });
    const image = await decodeB64(res.data![0]!.b64_json!);
    expect([image.width, image.height, image.format]).toEqual([1024, 1024, 'webp']);
    const account = (await (await openAccountsRepository(sqliteEngine(db))).list())[0]!;
    expect(sim.calls.map((c) => [c.kind, c.accountId])).toEqual([
      ['native.generate', account.upstreamAccountId],
    ]);
  });

  it('streams partial images through the Responses bridge, with every setting and no n', async () => {
    sim.calls.length = 0;
    const stream = await client.images.generate({
      model: 'image-model-2',
      prompt: 'a lantern',
      size: '1024x1536',
      quality: 'low',
      output_format: 'jpeg',
      stream: true,
      partial_images: 2,
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual([
      'image_generation.partial_image',
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
    expect(sim.calls).toHaveLength(1);
    // The bridge answers 400 to a tool with `n` (as the real upstream does): 200 means none was sent.
    expect(sim.calls[0]).toMatchObject({
      kind: 'responses',
      status: 200,
      size: '1024x1536',
      quality: 'low',
      outputFormat: 'jpeg',
      partialImages: 2,
    });
  });

  it('refuses a 4K request the subscription cannot deliver, and makes it with the ladder', async () => {
    const refused = await client.images
      .generate({ model: 'image-model-2', prompt: 'a city', size: '3840x2160' as '1024x1024' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, param: 'size' });
    const { data, response } = await client.images
      .generate(
        {
          model: 'image-model-2',
          prompt: 'a city',
          size: '3840x2160' as '1024x1024',
          output_format: 'jpeg',
        },
        { headers: { 'x-atelier-fallback': 'ladder' } },
      )
      .withResponse();
    expect(response.headers.get('x-atelier-fallback-step')).toBe('3');
    const image = await decodeB64(data.data![0]!.b64_json!);
    expect([image.width, image.height]).toEqual([3840, 2160]);
  });

  it('a revoked sign-in takes the account out of service, with the reason in accounts list', async () => {
    const account = (await (await openAccountsRepository(sqliteEngine(db))).list())[0]!;
    const secret = await readAccountSecret(
      await openSecretStore({ dataDir, env: process.env }),
      account.secretName!,
    );
    if (secret?.type !== 'oauth') throw new Error('no tokens');
    sim.revoke(secret.accessToken);
    sim.oauth.setRefreshTokenState(secret.refreshToken, 'invalidated');
    const err = await client.images
      .generate({ model: 'image-model-2', prompt: 'x', size: '1024x1024' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502 });
    expect((err as Error).message).toMatch(/credentials were rejected/);
    const after = (await (await openAccountsRepository(sqliteEngine(db))).get(account.id))!;
    expect(after.disabledReason).toMatch(/sign-in no longer valid.*atelier accounts login/);
    const listed = runCli(['accounts', 'list', '--data-dir', dataDir]);
    expect(listed.stdout).toMatch(/out_of_service/);
    expect(listed.stdout).toMatch(/sign-in no longer valid/);

    // Signing in again puts it back in service.
    expect(await cliLogin('my-sub')).toMatch(/Signed in again to subscription account/);
    expect(
      (await (await openAccountsRepository(sqliteEngine(db))).get(account.id))!.disabledReason,
    ).toBeNull();
    const ok = await client.images.generate({
      model: 'image-model-2',
      prompt: 'back again',
      size: '1024x1024',
    });
    expect(ok.data).toHaveLength(1);
  });
});
