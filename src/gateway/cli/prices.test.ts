import { describe, expect, it } from 'vitest';
import { databasePath } from '../core/dataDir';
import { openDatabase } from '../storage/db';
import { openPricesRepository } from '../storage/pricesRepository';
import { sqliteEngine } from '../storage/sqliteEngine';
import { tempDir } from '../storage/testing';
import { runPricesCommand } from './prices';

async function prices(argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runPricesCommand(argv, {
    stdout: (line) => stdout.push(...line.split('\n')),
    stderr: (line) => stderr.push(...line.split('\n')),
    env: {},
  });
  return { code, stdout, stderr };
}

async function stored(dataDir: string, model: string) {
  const engine = sqliteEngine(openDatabase(databasePath(dataDir)));
  try {
    return (await openPricesRepository(engine)).get(model);
  } finally {
    await engine.close();
  }
}

describe('atelier prices', () => {
  it('lists the price table in dollars per 1M tokens', async () => {
    const out = await prices(['list', '--data-dir', tempDir()]);
    expect(out.code).toBe(0);
    expect(out.stdout[0]).toMatch(/^MODEL\s+TEXT IN\s+IMAGE IN\s+TEXT OUT\s+IMAGE OUT\s+UPDATED$/);
    expect(out.stdout.find((l) => l.startsWith('image-model-2 '))).toMatch(
      /^image-model-2\s+\$5\.00\s+\$8\.00\s+\$10\.00\s+\$30\.00\s+\d{4}-/,
    );
    expect(out.stdout.find((l) => l.startsWith('agent-model-1-mini '))).toMatch(
      /\$0\.25\s+\$0\.25\s+\$2\.00\s+\$2\.00/,
    );
  });

  it('sets prices from decimal dollars, stored as integer micro-dollars', async () => {
    const dir = tempDir();
    const out = await prices([
      'set',
      'image-model-2',
      '--image-output',
      '40',
      '--text-input',
      '2.5',
      '--data-dir',
      dir,
    ]);
    expect(out).toEqual({
      code: 0,
      stdout: [
        'image-model-2: text input $2.50, image input $8.00, text output $10.00, image output $40.00 per 1M tokens.',
      ],
      stderr: [],
    });
    expect(await stored(dir, 'image-model-2')).toMatchObject({
      textInput: 2_500_000,
      imageOutput: 40_000_000,
    });
    const json = await prices(['list', '--json', '--data-dir', dir]);
    expect(JSON.parse(json.stdout.join('\n'))).toContainEqual(
      expect.objectContaining({ model: 'image-model-2', imageOutput: 40_000_000 }),
    );
  });

  it('refuses bad amounts, incomplete new models and empty updates', async () => {
    const dir = tempDir();
    const bad = await prices([
      'set',
      'image-model-2',
      '--image-output',
      '3.1234567',
      '--data-dir',
      dir,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr[0]).toMatch(/at most 6 decimals/);

    const partial = await prices(['set', 'new-model', '--text-input', '1', '--data-dir', dir]);
    expect(partial.code).toBe(1);
    expect(partial.stderr[0]).toMatch(/new-model has no prices yet/);
    expect(await stored(dir, 'new-model')).toBeNull();

    const none = await prices(['set', 'image-model-2', '--data-dir', dir]);
    expect(none.code).toBe(2);
    expect(none.stderr[0]).toMatch(/give at least one price/);
    expect((await stored(dir, 'image-model-2'))?.imageOutput).toBe(30_000_000);
  });
});
