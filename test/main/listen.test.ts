import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway';
import { listenPreferring } from '../../src/main/listen';

// The real gateway on plain Node (no Electron needed): the desktop app's start-up choice of port.
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-listen-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Another program holding a loopback port. */
async function holdPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

const made: Gateway[] = [];
const create = (dataDir: string) => async (port: number) => {
  const gateway = await createGateway({ host: '127.0.0.1', port, dataDir, simulatorSpeed: 0 });
  made.push(gateway);
  return gateway;
};

describe('listenPreferring', () => {
  it('moves to a free port when another program holds the usual one, and says so', async () => {
    const taken = await holdPort();
    const dataDir = tempDataDir();
    const { gateway, url, portTaken } = await listenPreferring(create(dataDir), taken);
    cleanup.push(() => gateway.close(0));
    expect(portTaken).toBe(taken);
    expect(new URL(url).port).not.toBe(String(taken));
    expect(gateway.url).toBe(url);
    // The second gateway serves, on the same data folder the first one let go of.
    const status = (await (await fetch(`${url}/api/status`)).json()) as { address: string };
    expect(status.address).toBe(url);
    expect(made).toHaveLength(2);
  });

  it('keeps the usual port when it is free', async () => {
    const free = await holdPort().then(async (port) => {
      // Release it again: a port known to be free a moment ago.
      await cleanup.pop()!();
      return port;
    });
    const { gateway, url, portTaken } = await listenPreferring(create(tempDataDir()), free);
    cleanup.push(() => gateway.close(0));
    expect(portTaken).toBeNull();
    expect(url).toBe(`http://127.0.0.1:${free}`);
  });
});
