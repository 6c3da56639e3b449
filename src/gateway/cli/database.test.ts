import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openAccountsRepository } from '../accounts/repository';
import { createKeysRepository } from '../keys/repository';
import { readAccountSecret } from '../secrets/accountSecret';
import { createDatabaseSecretStore } from '../secrets/databaseStore';
import { generateSecretKey, parseSecretKey } from '../secrets/secretKey';
import type { SqlEngine } from '../storage/engine';
import { openPostgresDatabase } from '../storage/postgresEngine';
import { openPricesRepository } from '../storage/pricesRepository';
import { createPostgresDatabase, tempDir } from '../storage/testing';
import { startSimulator } from '../../simulator';
import { runAccountsCommand } from './accounts';
import { ArgsError } from './args';
import type { CommandIo } from './command';
import { databaseUrlOf } from './databaseUrl';
import { runKeysCommand } from './keys';
import { runPricesCommand } from './prices';
import { runSecretsCommand } from './secrets';

// The keys, accounts and secrets commands on a team gateway's PostgreSQL (docs/team.md, step 5),
// on the test run's real server: each test has a database of its own.

type Command = (argv: string[], io: CommandIo) => Promise<number>;

/** Runs a command in process with `env` as its whole environment, capturing what it prints. */
async function run(command: Command, argv: string[], env: NodeJS.ProcessEnv) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await command(argv, {
    stdout: (line) => stdout.push(...line.split('\n')),
    stderr: (line) => stderr.push(...line.split('\n')),
    env,
  });
  return { code, stdout, stderr };
}

/** The database as the gateway's instances open it, for one use. */
async function withTeamDatabase<T>(url: string, use: (engine: SqlEngine) => Promise<T>) {
  const engine = await openPostgresDatabase({ url, max: 2 });
  try {
    return await use(engine);
  } finally {
    await engine.close();
  }
}

describe('the CLI on a team database (--database, ATELIER_DATABASE_URL)', () => {
  it('keys create and list work on the PostgreSQL database, not the data folder', async () => {
    const url = await createPostgresDatabase();
    // A data folder is set too: the database wins, and no SQLite file appears in it.
    const dataDir = tempDir();
    const env = { ATELIER_DATA_DIR: dataDir };
    const made = await run(runKeysCommand, ['create', '--name', 'team', '--database', url], env);
    expect(made.stderr).toEqual([]);
    expect(made.code).toBe(0);
    const key = made.stdout.at(-1) ?? '';
    expect(key).toMatch(/^atl_/);
    expect(await withTeamDatabase(url, (e) => createKeysRepository(e).authenticate(key))).toEqual(
      expect.objectContaining({ name: 'team', status: 'active' }),
    );

    // ATELIER_DATABASE_URL stands for the flag.
    const listed = await run(runKeysCommand, ['list', '--json'], {
      ...env,
      ATELIER_DATABASE_URL: url,
    });
    expect(listed.code).toBe(0);
    expect(
      (JSON.parse(listed.stdout.join('\n')) as Array<{ name: string }>).map((k) => k.name),
    ).toEqual(['team']);
    expect(fs.existsSync(path.join(dataDir, 'atelier.db'))).toBe(false);
  });

  it('keys disable and limit change the shared row', async () => {
    const url = await createPostgresDatabase();
    const env = { ATELIER_DATABASE_URL: url };
    const made = await run(runKeysCommand, ['create', '--name', 'bot'], env);
    const id = /key_[0-9a-f]{16}/.exec(made.stdout[0] ?? '')?.[0] ?? '';
    expect((await run(runKeysCommand, ['limit', 'bot', '--rpm', '7'], env)).code).toBe(0);
    expect((await run(runKeysCommand, ['disable', id], env)).code).toBe(0);
    const record = await withTeamDatabase(url, (e) => createKeysRepository(e).get(id));
    expect(record).toMatchObject({ status: 'disabled', rpmLimit: 7 });
  });

  it('accounts add-key seals the upstream key in the database under the secret key', async () => {
    const url = await createPostgresDatabase();
    const secretKey = generateSecretKey();
    const added = await run(
      runAccountsCommand,
      ['add-key', '--name', 'relay', '--base-url', 'https://api.example.com/v1', '--capacity', '6'],
      {
        ATELIER_DATABASE_URL: url,
        ATELIER_SECRET_KEY: secretKey,
        ATELIER_ACCOUNT_KEY: 'sk-upstream-relay-secret',
      },
    );
    expect(added.stderr).toEqual([]);
    expect(added.code).toBe(0);
    expect(added.stdout.join('\n')).toMatch(/its key is in the database\.$/);
    await withTeamDatabase(url, async (engine) => {
      const [account] = await (await openAccountsRepository(engine)).list();
      expect(account).toMatchObject({ name: 'relay', kind: 'api_key', capacity: 6 });
      const rows = await engine.all<{ sealed: Buffer }>('SELECT sealed FROM secrets');
      expect(rows).toHaveLength(1);
      expect(rows[0]?.sealed.includes('sk-upstream-relay-secret')).toBe(false);
      const store = createDatabaseSecretStore({ engine, key: parseSecretKey(secretKey, 'k') });
      expect(await readAccountSecret(store, account!.secretName!)).toEqual({
        type: 'api_key',
        apiKey: 'sk-upstream-relay-secret',
      });
    });

    // The list shows it; without the secret key an account cannot be added there.
    const listed = await run(runAccountsCommand, ['list', '--database', url], {});
    expect(listed.stdout.join('\n')).toMatch(/relay +api_key/);
    const refused = await run(
      runAccountsCommand,
      ['add-key', '--name', 'other', '--base-url', 'https://api.example.com/v1', '--database', url],
      { ATELIER_ACCOUNT_KEY: 'sk-other' },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr.join('\n')).toMatch(/need a key: set ATELIER_SECRET_KEY/);
  });

  it('accounts login signs a subscription account in, its tokens sealed in the database', async () => {
    const url = await createPostgresDatabase();
    const simulator = await startSimulator({ speed: 0 });
    onTestFinished(() => simulator.close());
    const secretKey = generateSecretKey();
    const stdout: string[] = [];
    const signedIn = runAccountsCommand(
      [
        ...['login', '--name', 'studio-plan', '--issuer', simulator.url, '--port', '0'],
        ...['--base-url', `${simulator.url}/backend-api/codex`, '--no-browser', '--database', url],
      ],
      {
        stdout: (line) => stdout.push(line),
        stderr: (line) => stdout.push(line),
        env: { ATELIER_SECRET_KEY: secretKey },
      },
    );
    // "The browser": the authorize URL the command prints, signed in as one person.
    await expect.poll(() => stdout.some((line) => /oauth\/authorize/.test(line))).toBe(true);
    const authorize = stdout.find((line) => /oauth\/authorize/.test(line))!.trim();
    const page = await fetch(`${authorize}&login_hint=lead%40example.com`);
    expect(page.status).toBe(200);
    expect(await signedIn).toBe(0);
    expect(stdout.at(-1)).toMatch(/^Added subscription account .*tokens are in the database\.$/);

    await withTeamDatabase(url, async (engine) => {
      const [account] = await (await openAccountsRepository(engine)).list();
      expect(account).toMatchObject({ name: 'studio-plan', kind: 'subscription' });
      const store = createDatabaseSecretStore({ engine, key: parseSecretKey(secretKey, 'k') });
      const secret = await readAccountSecret(store, account!.secretName!);
      expect(secret?.type).toBe('oauth');
      if (secret?.type !== 'oauth') return;
      const sealed = await engine.all<{ sealed: Buffer }>('SELECT sealed FROM secrets');
      expect(sealed.some((row) => row.sealed.includes(secret.refreshToken))).toBe(false);
    });
  });

  it('prices set changes the price every instance reads', async () => {
    const url = await createPostgresDatabase();
    const env = { ATELIER_DATABASE_URL: url };
    const set = await run(runPricesCommand, ['set', 'image-model-2', '--image-output', '31'], env);
    expect(set.stderr).toEqual([]);
    expect(set.code).toBe(0);
    const price = await withTeamDatabase(url, async (engine) =>
      (await openPricesRepository(engine)).get('image-model-2'),
    );
    expect(price?.imageOutput).toBe(31_000_000);
  });

  it('secrets rotate-key seals the database secrets again under the new key', async () => {
    const url = await createPostgresDatabase();
    const [oldKey, newKey] = [generateSecretKey(), generateSecretKey()];
    await withTeamDatabase(url, (engine) =>
      createDatabaseSecretStore({ engine, key: parseSecretKey(oldKey, 'k') }).set(
        'account/team',
        'sk-team',
      ),
    );
    const rotated = await run(runSecretsCommand, ['rotate-key', '--database', url], {
      ATELIER_SECRET_KEY: oldKey,
      ATELIER_NEW_SECRET_KEY: newKey,
    });
    expect(rotated.stderr).toEqual([]);
    expect(rotated.stdout[0]).toMatch(/^Sealed 1 secret\(s\) again/);
    await withTeamDatabase(url, async (engine) => {
      const sealedUnderNew = createDatabaseSecretStore({
        engine,
        key: parseSecretKey(newKey, 'k'),
      });
      expect(await sealedUnderNew.get('account/team')).toBe('sk-team');
      await expect(
        createDatabaseSecretStore({ engine, key: parseSecretKey(oldKey, 'k') }).probe(),
      ).rejects.toMatchObject({ code: 'wrong_key' });
    });
  });

  it('says what is wrong with the database: a usage error for the URL, exit 1 when unreachable', async () => {
    const wrongScheme = await run(runKeysCommand, ['list', '--database', 'mysql://h/db'], {});
    expect(wrongScheme.code).toBe(2);
    expect(wrongScheme.stderr[0]).toBe(
      "atelier keys: --database must be a PostgreSQL URL (postgres:// or postgresql://), got 'mysql:'",
    );
    const fromEnv = await run(runAccountsCommand, ['list'], { ATELIER_DATABASE_URL: 'atelier.db' });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr[0]).toMatch(/^atelier accounts: ATELIER_DATABASE_URL must be/);
    // Port 1 on loopback: nothing listens there. The password is not repeated.
    const unreachable = await run(
      runKeysCommand,
      ['list', '--database', 'postgres://atelier:hunter2@127.0.0.1:1/none'],
      {},
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr[0]).toMatch(
      /^atelier keys: cannot open the database postgres:\/\/atelier:\*\*\*@127\.0\.0\.1:1\/none: /,
    );
    expect(unreachable.stderr.join('\n')).not.toContain('hunter2');
  });
});

describe("docs/team.md's keys and accounts commands", () => {
  /** The commands of the doc's first `sh` block after `heading`, as env and argv. */
  function docCommands(heading: string, databaseUrl: string) {
    const doc = fs.readFileSync('docs/team.md', 'utf8');
    const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf(heading)))?.[1] ?? '';
    return block
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const words = line.trim().split(/\s+/);
        const env: Record<string, string> = {};
        while (/^[A-Z_]+=/.test(words[0] ?? '')) {
          const [name = '', value = ''] = words.shift()!.split('=');
          env[name] = value;
        }
        expect(words.slice(0, 2)).toEqual(['npx', 'atelier']);
        return { env, argv: words.slice(2).map((w) => (w === '"$DB"' ? databaseUrl : w)) };
      });
  }

  it('run as written on a team database', async () => {
    const url = await createPostgresDatabase();
    const commands = docCommands('### 5. Keys and accounts', url);
    expect(commands.map((c) => c.argv.slice(0, 2))).toEqual([
      ['keys', 'create'],
      ['accounts', 'add-key'],
    ]);
    const secretKey = generateSecretKey();
    for (const { env, argv } of commands) {
      const [group = '', ...rest] = argv;
      const command = group === 'keys' ? runKeysCommand : runAccountsCommand;
      const out = await run(command, rest, { ...env, ATELIER_SECRET_KEY: secretKey });
      expect(out.stderr).toEqual([]);
      expect(out.code).toBe(0);
    }
    await withTeamDatabase(url, async (engine) => {
      expect((await createKeysRepository(engine).list()).map((k) => k.name)).toEqual([
        'studio-team',
      ]);
      const [account] = await (await openAccountsRepository(engine)).list();
      expect(account).toMatchObject({ name: 'relay', baseUrl: 'https://api.example.com/v1' });
    });
  });
});

describe('databaseUrlOf', () => {
  it('takes the flag over ATELIER_DATABASE_URL; an empty variable is unset', () => {
    const env = { ATELIER_DATABASE_URL: 'postgresql://a@h/team' };
    expect(databaseUrlOf(undefined, env)).toBe('postgresql://a@h/team');
    expect(databaseUrlOf('postgres://b@h/other', env)).toBe('postgres://b@h/other');
    expect(databaseUrlOf(undefined, { ATELIER_DATABASE_URL: '' })).toBeUndefined();
    expect(databaseUrlOf(undefined, {})).toBeUndefined();
  });

  it('answers any text with a PostgreSQL URL or an ArgsError naming where it came from', () => {
    fc.assert(
      fc.property(fc.string(), fc.boolean(), (text, asFlag) => {
        const env = asFlag ? {} : { ATELIER_DATABASE_URL: text };
        let value: string | undefined;
        try {
          value = databaseUrlOf(asFlag ? text : undefined, env);
        } catch (error) {
          expect(error).toBeInstanceOf(ArgsError);
          expect((error as Error).message).toMatch(
            asFlag ? /^--database must be/ : /^ATELIER_DATABASE_URL must be/,
          );
          return;
        }
        if (!asFlag && text === '') {
          expect(value).toBeUndefined();
          return;
        }
        expect(value).toBe(text);
        expect(['postgres:', 'postgresql:']).toContain(new URL(text).protocol);
      }),
    );
    fc.assert(
      fc.property(fc.webUrl(), (web) => {
        const url = web.replace(/^https?:/, 'postgres:');
        expect(databaseUrlOf(url, {})).toBe(url);
      }),
      // Each generated URL is long to make; a few dozen cover its shapes.
      { numRuns: 30 },
    );
  });
});
