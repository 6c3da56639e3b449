import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli';
import { tempDir } from '../support/gateway';

const dataDir = tempDir('atelier-accounts-');
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('atelier accounts', () => {
  it('says the simulator serves while no account exists', () => {
    const res = runCli(['accounts', 'list', '--data-dir', dataDir]);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/built-in offline simulator serves every request/);
  });

  it('adds, changes, disables and removes a simulator account', () => {
    expect(
      runCli([
        'accounts',
        'add-simulator',
        '--name',
        'sim-a',
        '--tier',
        'pro',
        '--capacity',
        '3',
        '--data-dir',
        dataDir,
      ]).status,
    ).toBe(0);
    expect(
      runCli([
        'accounts',
        'set',
        'sim-a',
        '--capacity',
        '5',
        '--group',
        'team',
        '--data-dir',
        dataDir,
      ]).status,
    ).toBe(0);
    const listed = JSON.parse(
      runCli(['accounts', 'list', '--json', '--data-dir', dataDir]).stdout,
    ) as Array<{
      name: string;
      capacity: number;
      groupName: string;
      status: { state: string };
    }>;
    expect(listed).toEqual([
      expect.objectContaining({
        name: 'sim-a',
        capacity: 5,
        groupName: 'team',
        status: { state: 'ready', detail: '' },
      }),
    ]);
    expect(runCli(['accounts', 'disable', 'sim-a', '--data-dir', dataDir]).stdout).toMatch(
      /Disabled account/,
    );
    expect(runCli(['accounts', 'list', '--data-dir', dataDir]).stdout).toMatch(
      /disabled by the user/,
    );
    expect(runCli(['accounts', 'remove', 'sim-a', '--data-dir', dataDir]).status).toBe(0);
    expect(runCli(['accounts', 'remove', 'sim-a', '--data-dir', dataDir]).status).toBe(1);
  });

  it('refuses an API key given nowhere, and bad flags, with a clear message', () => {
    const noKey = runCli([
      'accounts',
      'add-key',
      '--name',
      'k',
      '--base-url',
      'https://relay.example/v1',
      '--data-dir',
      dataDir,
    ]);
    expect(noKey.status).toBe(1);
    expect(noKey.stderr).toMatch(/ATELIER_ACCOUNT_KEY/);
    const badUrl = runCli([
      'accounts',
      'add-key',
      '--name',
      'k',
      '--base-url',
      'not a url',
      '--data-dir',
      dataDir,
    ]);
    expect(badUrl.status).toBe(2);
    expect(badUrl.stderr).toMatch(/--base-url/);
  });
});
