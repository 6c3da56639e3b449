import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway';
import { databasePath } from '../../src/gateway/core/dataDir';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { openDatabase } from '../../src/gateway/storage/db';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { tempDir } from '../support/gateway';
import { checkRepliesOf } from '../support/openapiReplies';

/**
 * Two gateways on one data folder (the desktop app and `atelier serve`, docs/operations.md): each
 * one's signed-URL images must outlive the other's start and stop (issue 23 item 8).
 */
const dataDir = tempDir('atelier-shared-');
const db = openDatabase(databasePath(dataDir));
const { key } = await createKeysRepository(sqliteEngine(db)).create({
  name: 'shared',
  group: 'default',
});
db.close();

const start = async () => {
  const gateway = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    simulatorSpeed: 0,
    oauthCallbackPort: 0,
    log: () => undefined,
  });
  const url = await gateway.listen();
  checkRepliesOf(url);
  return { gateway, url };
};

async function urlImage(url: string): Promise<string> {
  const res = await fetch(`${url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'image-model-2',
      prompt: 'a lighthouse',
      size: '1024x1024',
      quality: 'low',
      response_format: 'url',
    }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { url: string }[] };
  return body.data[0]!.url;
}

const running: Gateway[] = [];
afterAll(async () => {
  await Promise.all(running.map((gateway) => gateway.close(1_000)));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('two gateways on one data folder', () => {
  it("neither deletes the other's signed-URL images, at its start or at its stop", async () => {
    const first = await start();
    running.push(first.gateway);
    const firstImage = await urlImage(first.url);

    const second = await start();
    running.push(second.gateway);
    expect((await fetch(firstImage)).status).toBe(200);
    expect((await fetch(await urlImage(second.url))).status).toBe(200);

    await second.gateway.close(1_000);
    expect((await fetch(firstImage)).status).toBe(200);

    const third = await start();
    running.push(third.gateway);
    const again = await fetch(firstImage);
    expect(again.status).toBe(200);
    expect(again.headers.get('content-type')).toBe('image/png');
    expect((await again.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });
});
