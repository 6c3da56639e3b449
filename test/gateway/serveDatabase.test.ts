import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../../src/gateway/storagePart';
import { createPostgresDatabase, tempDir } from '../../src/gateway/storage/testing';
import { runCliAsync } from '../support/cli';

/**
 * `atelier serve --database <PostgreSQL>` as a real process against the test run's PostgreSQL
 * (issue 21 item 4). While some state still runs on the SQLite file only, it must refuse to
 * start, naming what is missing, before it opens or writes anything.
 */
describe('atelier serve --database', () => {
  it('refuses to start while state runs on the SQLite file only, naming it, writing nothing', async () => {
    expect(SQLITE_ONLY.length).toBeGreaterThan(0);
    const url = await createPostgresDatabase();
    const dataDir = path.join(tempDir(), 'data');
    const res = await runCliAsync([
      'serve',
      '--port',
      '0',
      '--database',
      url,
      '--data-dir',
      dataDir,
    ]);
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('--database (PostgreSQL) cannot start yet');
    for (const missing of SQLITE_ONLY) expect(res.stderr).toContain(missing);
    expect(res.stdout).not.toContain('listening on');
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('refuses ATELIER_DATABASE_URL naming another database, as a usage error', async () => {
    const res = await runCliAsync(['serve', '--port', '0'], {
      ATELIER_DATABASE_URL: 'mysql://localhost/atelier',
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('--database must be a PostgreSQL URL');
  });
});
