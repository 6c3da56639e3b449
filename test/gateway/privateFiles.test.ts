import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openDatabase } from '../../src/gateway/storage/db';
import { tempDir } from '../support/gateway';

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe.skipIf(process.platform === 'win32')('the data folder is private', () => {
  it('repairs a folder and files that other users could read, on start', async () => {
    const parent = tempDir();
    const dataDir = path.join(parent, 'Atelier');
    fs.mkdirSync(path.join(dataDir, 'images', '2026'), { recursive: true, mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, 'images'), 0o755);
    const image = path.join(dataDir, 'images', '2026', 'a.png');
    fs.writeFileSync(image, 'x', { mode: 0o644 });
    // A database an earlier version made readable to everyone.
    openDatabase(databasePath(dataDir)).close();
    fs.chmodSync(databasePath(dataDir), 0o644);

    const gateway = await createGateway({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      simulatorSpeed: 0,
      oauthCallbackPort: 0,
      log: () => undefined,
    });
    try {
      await gateway.listen();
      expect(mode(dataDir)).toBe(0o700);
      expect(mode(path.join(dataDir, 'images'))).toBe(0o700);
      expect(mode(path.join(dataDir, 'images', '2026'))).toBe(0o700);
      expect(mode(image)).toBe(0o600);
      for (const file of fs.readdirSync(dataDir).filter((f) => f.startsWith('atelier.db'))) {
        expect(mode(path.join(dataDir, file)), file).toBe(0o600);
      }
    } finally {
      await gateway.close(1_000);
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it('creates a new database and its WAL as 0600 in a 0700 folder', () => {
    const parent = tempDir();
    const dataDir = path.join(parent, 'fresh');
    const db = openDatabase(databasePath(dataDir));
    try {
      db.prepare('CREATE TABLE IF NOT EXISTS t (x)').run();
      db.prepare('INSERT INTO t VALUES (1)').run();
      expect(mode(dataDir)).toBe(0o700);
      const files = fs.readdirSync(dataDir).filter((f) => f.startsWith('atelier.db'));
      expect(files).toContain('atelier.db-wal');
      for (const file of files) expect(mode(path.join(dataDir, file)), file).toBe(0o600);
    } finally {
      db.close();
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
