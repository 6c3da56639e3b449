import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { savedListenAddress } from './listenAddress';
import { openSettingsRepository } from './storage/settingsRepository';
import { SETTINGS } from './storage/settings';
import { createPostgresDatabase, tempDir } from './storage/testing';
import { openPostgresDatabase } from './storage/postgresEngine';

describe('the saved listen address', () => {
  it("is read from the PostgreSQL database's Settings when the gateway is given one", async () => {
    const url = await createPostgresDatabase();
    const dataDir = path.join(tempDir(), 'data');
    expect(await savedListenAddress(dataDir, url)).toEqual({ host: '127.0.0.1', port: 8787 });
    const engine = await openPostgresDatabase({ url, max: 1 });
    try {
      const settings = await openSettingsRepository(engine);
      await settings.set(SETTINGS.serverPort, 9911);
    } finally {
      await engine.close();
    }
    expect(await savedListenAddress(dataDir, url)).toEqual({ host: '127.0.0.1', port: 9911 });
  });
});
