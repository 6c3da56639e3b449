import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath } from '../core/dataDir';
import { openSecretStore } from '../secrets';
import { readAccountSecret } from '../secrets/accountSecret';
import { parseSecretKey } from '../secrets/secretKey';
import { openDatabase } from '../storage/db';
import { sqliteEngine } from '../storage/sqliteEngine';
import { tempDir } from '../storage/testing';
import { runAccountsCommand } from './accounts';
import { runSecretsCommand } from './secrets';

/** The name the one secret of `dataDir`'s database is stored under. */
function rowsName(dataDir: string): string {
  const db = openDatabase(databasePath(dataDir));
  try {
    return (db.prepare('SELECT name FROM secrets').pluck().get() as string | undefined) ?? '';
  } finally {
    db.close();
  }
}

async function secrets(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runSecretsCommand(argv, {
    stdout: (line) => stdout.push(...line.split('\n')),
    stderr: (line) => stderr.push(...line.split('\n')),
    env,
  });
  return { code, stdout, stderr };
}

/** Opens the data dir's database store with `env`'s key, for one use. */
async function withStore<T>(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  use: (store: Awaited<ReturnType<typeof openSecretStore>>) => Promise<T>,
): Promise<T> {
  const db = openDatabase(databasePath(dataDir));
  try {
    return await use(await openSecretStore({ dataDir, env, engine: sqliteEngine(db) }));
  } finally {
    db.close();
  }
}

describe('atelier secrets', () => {
  it('generates keys that parse, a different one each time', async () => {
    const first = await secrets(['generate-key']);
    const second = await secrets(['generate-key']);
    expect(first.code).toBe(0);
    const key = first.stdout[0] ?? '';
    expect(parseSecretKey(key, 'k').bytes).toHaveLength(32);
    expect(second.stdout[0]).not.toBe(key);
  });

  it('rotates the key of the secrets in the database, saying so without printing a key', async () => {
    const dataDir = tempDir();
    const oldKey = (await secrets(['generate-key'])).stdout[0] ?? '';
    const newKey = (await secrets(['generate-key'])).stdout[0] ?? '';
    const newKeyFile = path.join(dataDir, 'new.key');
    writeFileSync(newKeyFile, newKey, { mode: 0o600 });
    const oldEnv = { ATELIER_SECRET_KEY: oldKey };
    await withStore(dataDir, oldEnv, async (store) => {
      expect(store.kind).toBe('database');
      await store.set('account/a', 'sk-upstream-a');
      await store.set('account/b', 'sk-upstream-b');
    });

    const out = await secrets(
      ['rotate-key', '--new-key-file', newKeyFile, '--data-dir', dataDir],
      oldEnv,
    );
    expect(out.stderr).toEqual([]);
    expect(out.code).toBe(0);
    const ids = [parseSecretKey(oldKey, 'k').id, parseSecretKey(newKey, 'k').id];
    expect(out.stdout[0]).toBe(`Sealed 2 secret(s) again: key ${ids[0]} -> ${ids[1]}.`);
    expect(out.stdout.join('\n')).not.toContain(oldKey);
    expect(out.stdout.join('\n')).not.toContain(newKey);

    expect(
      await withStore(dataDir, { ATELIER_SECRET_KEY_FILE: newKeyFile }, (store) =>
        store.get('account/b'),
      ),
    ).toBe('sk-upstream-b');
    // A gateway still on the old key is refused at start, with the reason.
    await expect(withStore(dataDir, oldEnv, async () => undefined)).rejects.toMatchObject({
      code: 'wrong_key',
    });
  });

  it('atelier accounts add-key with a secret key seals the upstream key in the database', async () => {
    const dataDir = tempDir();
    const env = { ATELIER_SECRET_KEY: (await secrets(['generate-key'])).stdout[0] ?? '' };
    const stdout: string[] = [];
    const code = await runAccountsCommand(
      [
        'add-key',
        '--name',
        'relay',
        '--base-url',
        'https://api.example.com/v1',
        '--data-dir',
        dataDir,
      ],
      {
        stdout: (line) => stdout.push(line),
        stderr: (line) => stdout.push(line),
        env: { ...env, ATELIER_ACCOUNT_KEY: 'sk-upstream-relay-secret' },
      },
    );
    expect(code).toBe(0);
    expect(stdout.join('\n')).toMatch(/its key is in the database\.$/);
    const db = openDatabase(databasePath(dataDir));
    try {
      const rows = db.prepare('SELECT name, sealed FROM secrets').all() as Array<{
        name: string;
        sealed: Buffer;
      }>;
      expect(rows).toHaveLength(1);
      expect(rows[0]?.sealed.includes('sk-upstream-relay-secret')).toBe(false);
    } finally {
      db.close();
    }
    expect(
      await withStore(dataDir, env, (store) => readAccountSecret(store, rowsName(dataDir))),
    ).toEqual({ type: 'api_key', apiKey: 'sk-upstream-relay-secret' });
  });

  it('says which key is missing or wrong, with exit status 1', async () => {
    const dataDir = tempDir();
    const missing = await secrets(['rotate-key', '--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr[0]).toMatch(/ATELIER_SECRET_KEY/);
    const key = (await secrets(['generate-key'])).stdout[0] ?? '';
    const noNew = await secrets(['rotate-key', '--data-dir', dataDir], { ATELIER_SECRET_KEY: key });
    expect(noNew.code).toBe(1);
    expect(noNew.stderr[0]).toMatch(/new key is needed/);
    const bad = await secrets(['rotate-key', '--data-dir', dataDir], {
      ATELIER_SECRET_KEY: key,
      ATELIER_NEW_SECRET_KEY: 'not-a-key',
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr[0]).toMatch(/ATELIER_NEW_SECRET_KEY is not a secret key/);
    expect(bad.stderr.join('\n')).not.toContain(key);
    const unknown = await secrets(['rotate-key', '--bogus']);
    expect(unknown.code).toBe(2);
  });
});
