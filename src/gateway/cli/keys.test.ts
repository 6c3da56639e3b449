import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath } from '../core/dataDir';
import { openDatabase } from '../storage/db';
import { createKeysRepository } from '../keys/repository';
import { sqliteEngine } from '../storage/sqliteEngine';
import { tempDir } from '../storage/testing';
import { runKeysCommand } from './keys';

/** Runs `atelier keys ...` against a data dir and captures what it prints. */
async function keys(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runKeysCommand(argv, {
    stdout: (line) => stdout.push(...line.split('\n')),
    stderr: (line) => stderr.push(...line.split('\n')),
    env,
  });
  return { code, stdout, stderr };
}

async function authenticate(dataDir: string, key: string) {
  const db = openDatabase(databasePath(dataDir));
  try {
    return await createKeysRepository(sqliteEngine(db)).authenticate(key);
  } finally {
    db.close();
  }
}

describe('atelier keys', () => {
  it('creates a key, prints it alone on the last line, and it authenticates', async () => {
    const dir = tempDir();
    const out = await keys(['create', '--name', 'CI bot', '--group', 'builds', '--data-dir', dir]);
    expect(out.code).toBe(0);
    expect(out.stderr).toEqual([]);
    const key = out.stdout.at(-1) ?? '';
    expect(key).toMatch(/^atl_[0-9A-Za-z]{43}$/);
    const id = /key_[0-9a-f]{16}/.exec(out.stdout[0] ?? '')?.[0];
    expect(out.stdout[0]).toBe(`Created key ${id} "CI bot" in group "builds".`);
    expect(out.stdout.slice(0, -1).join('\n')).toMatch(/shown only this once/);
    expect(out.stdout.slice(0, -1).join('\n')).not.toContain(key);
    expect(await authenticate(dir, key)).toMatchObject({
      id,
      name: 'CI bot',
      group: 'builds',
      status: 'active',
    });
  });

  it('lists keys without ever printing them', async () => {
    const dir = tempDir();
    const created = await keys(['create', '--name', 'alpha', '--data-dir', dir]);
    const key = created.stdout.at(-1) ?? '';
    await keys(['create', '--name', 'beta', '--data-dir', dir]);

    const table = await keys(['list', '--data-dir', dir]);
    expect(table.code).toBe(0);
    expect(table.stdout[0]).toMatch(
      /^ID\s+NAME\s+GROUP\s+KEY\s+STATUS\s+CREATED\s+LAST USED\s+LIMITS \(USED OF LIMIT\)$/,
    );
    expect(table.stdout).toHaveLength(3);
    expect(table.stdout[1]).toMatch(
      new RegExp(
        `^key_[0-9a-f]{16}\\s+alpha\\s+default\\s+atl_${key.slice(4, 12)}…\\s+active\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+never\\s+none$`,
      ),
    );
    expect(table.stdout.join('\n')).not.toContain(key.slice(12));

    const json = await keys(['list', '--json', '--data-dir', dir]);
    const records = JSON.parse(json.stdout.join('\n')) as Record<string, unknown>[];
    expect(records.map((r) => r.name)).toEqual(['alpha', 'beta']);
    expect(json.stdout.join('\n')).not.toContain(key.slice(12));
    expect(records[0]).not.toHaveProperty('hash');
  });

  it('disable stops a key from authenticating; enable brings it back; delete is final', async () => {
    const dir = tempDir();
    const created = await keys(['create', '--name', 'app', '--data-dir', dir]);
    const key = created.stdout.at(-1) ?? '';
    const id = (await authenticate(dir, key))?.id ?? '';

    expect(await keys(['disable', id, '--data-dir', dir])).toEqual({
      code: 0,
      stdout: [`Disabled key ${id} "app".`],
      stderr: [],
    });
    expect(await authenticate(dir, key)).toBeNull();
    expect((await keys(['list', '--data-dir', dir])).stdout[1]).toMatch(/\sdisabled\s/);

    expect((await keys(['enable', id, '--data-dir', dir])).code).toBe(0);
    expect((await authenticate(dir, key))?.id).toBe(id);

    expect((await keys(['delete', id, '--data-dir', dir])).code).toBe(0);
    expect(await authenticate(dir, key)).toBeNull();
    expect((await keys(['list', '--data-dir', dir])).stdout).toEqual([
      'No keys yet. Make one with: atelier keys create --name NAME',
    ]);
    expect((await keys(['list', '--all', '--data-dir', dir])).stdout[1]).toMatch(/\sdeleted\s/);

    const again = await keys(['enable', id, '--data-dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toEqual([`atelier keys: key '${id}' is deleted; make a new one instead`]);
    expect(await authenticate(dir, key)).toBeNull();
  });

  it('fails with exit 1 and a clear message for an unknown id', async () => {
    const dir = tempDir();
    for (const action of ['disable', 'enable', 'delete']) {
      const out = await keys([action, 'key_ffffffffffffffff', '--data-dir', dir]);
      expect(out).toEqual({
        code: 1,
        stdout: [],
        stderr: ["atelier keys: no key with id 'key_ffffffffffffffff' (see: atelier keys list)"],
      });
    }
  });

  it('uses ATELIER_DATA_DIR when no --data-dir is given', async () => {
    const dir = path.join(tempDir(), 'from-env');
    const created = await keys(['create', '--name', 'env'], { ATELIER_DATA_DIR: dir });
    expect(created.code).toBe(0);
    expect((await authenticate(dir, created.stdout.at(-1) ?? ''))?.name).toBe('env');
  });

  it('answers malformed command lines with exit 2 and the usage', async () => {
    const dir = tempDir();
    const cases: [string[], RegExp][] = [
      [[], /missing subcommand/],
      [['rotate'], /unknown subcommand 'rotate'/],
      [['create', '--data-dir', dir], /--name is required/],
      [['create', '--name', 'x', '--colour', 'red', '--data-dir', dir], /unknown option --colour/],
      [['disable', '--data-dir', dir], /missing ID/],
      [['disable', 'a', 'b', '--data-dir', dir], /unexpected argument 'b'/],
    ];
    for (const [argv, message] of cases) {
      const out = await keys(argv);
      expect(out.code).toBe(2);
      expect(out.stdout).toEqual([]);
      expect(out.stderr[0]).toMatch(message);
      expect(out.stderr.join('\n')).toContain('usage:');
    }
  });

  it('reports an invalid name with exit 1', async () => {
    const out = await keys(['create', '--name', ' ', '--data-dir', tempDir()]);
    expect(out).toEqual({
      code: 1,
      stdout: [],
      stderr: ['atelier keys: Key name must be 1 to 100 characters long.'],
    });
  });

  it('creates a key with limits, changes them by name, clears them, and lists them with use', async () => {
    const dir = tempDir();
    const created = await keys([
      'create',
      '--name',
      'render farm',
      '--budget',
      '12.50',
      '--budget-period',
      'day',
      '--rpm',
      '30',
      '--images-per-day',
      '200',
      '--expires',
      '2030-01-31',
      '--data-dir',
      dir,
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout[1]).toBe(
      'Limits: $0.0000 of $12.50/day, 0/30 rpm, 0/200 images today, expires 2030-01-31.',
    );
    const key = created.stdout.at(-1) ?? '';
    expect(await authenticate(dir, key)).toMatchObject({
      budgetMicros: 12_500_000,
      budgetPeriod: 'day',
      rpmLimit: 30,
      imagesPerDay: 200,
      expiresAt: Date.UTC(2030, 0, 31),
    });

    const changed = await keys([
      'limit',
      'render farm',
      '--rpm',
      'none',
      '--budget',
      '40',
      '--data-dir',
      dir,
    ]);
    expect(changed).toMatchObject({ code: 0, stderr: [] });
    expect(changed.stdout[0]).toMatch(
      /^Limits of key key_[0-9a-f]{16} "render farm": \$0\.0000 of \$40\.00\/day, 0\/200 images today, expires 2030-01-31\.$/,
    );
    expect(await authenticate(dir, key)).toMatchObject({
      rpmLimit: null,
      budgetMicros: 40_000_000,
    });

    const table = await keys(['list', '--data-dir', dir]);
    expect(table.stdout[1]).toMatch(
      /\$0\.0000 of \$40\.00\/day, 0\/200 images today, expires 2030-01-31$/,
    );
    const json = JSON.parse(
      (await keys(['list', '--json', '--data-dir', dir])).stdout.join('\n'),
    ) as Array<Record<string, unknown>>;
    expect(json[0]).toMatchObject({
      budgetMicros: 40_000_000,
      limitUse: { budgetUsedMicros: 0, imagesToday: 0, requestsLastMinute: 0 },
    });

    const id = (await authenticate(dir, key))?.id ?? '';
    expect((await keys(['limit', id, '--none', '--data-dir', dir])).stdout).toEqual([
      `Limits of key ${id} "render farm": none.`,
    ]);
    expect(await authenticate(dir, key)).toMatchObject({
      budgetMicros: null,
      budgetPeriod: null,
      rpmLimit: null,
      imagesPerDay: null,
      expiresAt: null,
    });
  });

  it('refuses malformed limits with exit 2, and an unknown key with exit 1', async () => {
    const dir = tempDir();
    await keys(['create', '--name', 'app', '--data-dir', dir]);
    const cases: [string[], RegExp][] = [
      [['limit', 'app', '--budget', 'ten'], /--budget takes dollars/],
      [['limit', 'app', '--budget', '0'], /--budget takes dollars/],
      [['limit', 'app', '--budget-period', 'week'], /--budget-period is day, month or total/],
      [['limit', 'app', '--rpm', '1.5'], /--rpm takes a whole number/],
      [['limit', 'app', '--expires', '2026-02-30'], /--expires takes a date/],
      [['limit', 'app', '--none', '--rpm', '3'], /--none clears every limit/],
      [['limit', 'app'], /give a limit to set/],
    ];
    for (const [argv, message] of cases) {
      const out = await keys([...argv, '--data-dir', dir]);
      expect(out.code).toBe(2);
      expect(out.stderr[0]).toMatch(message);
    }
    const period = await keys(['limit', 'app', '--budget-period', 'day', '--data-dir', dir]);
    expect(period).toMatchObject({ code: 1, stderr: [expect.stringMatching(/needs a budget/)] });
    const unknown = await keys(['limit', 'nobody', '--rpm', '3', '--data-dir', dir]);
    expect(unknown).toMatchObject({
      code: 1,
      stderr: [expect.stringMatching(/no key with id 'nobody'/)],
    });
  });

  it('prints its usage for help', async () => {
    const out = await keys(['--help']);
    expect(out.code).toBe(0);
    expect(out.stdout.join('\n')).toContain('atelier keys create --name NAME');
  });
});
