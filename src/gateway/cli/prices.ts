import {
  dollarsToMicros,
  formatMicros,
  PRICE_FIELDS,
  type PriceField,
  type Prices,
} from '../billing/prices';
import { openPricesRepository } from '../storage/pricesRepository';
import { ArgsError, parseArgs } from './args';
import {
  expectPositionals,
  formatTable,
  formatTime,
  runSubcommands,
  STORAGE_FLAGS,
  withStorage,
  type CommandIo,
} from './command';

const PROGRAM = 'atelier prices';
const USAGE = `usage:
  atelier prices list [--json]
  atelier prices set MODEL [--text-input $] [--image-input $] [--text-output $] [--image-output $]

  Prices are dollars per 1M tokens, e.g. --image-output 30. A new model needs all four.
  New prices apply to requests from now on; recorded costs keep the price they were made with.
  Every command takes --data-dir DIR, or --database postgres://... (or ATELIER_DATABASE_URL) for
  a team gateway's database.`;

const FLAG_OF: Record<PriceField, string> = {
  textInput: 'text-input',
  imageInput: 'image-input',
  textOutput: 'text-output',
  imageOutput: 'image-output',
};

/** `atelier prices ...`; `argv` is what follows `prices`. Exit codes as for `atelier keys`. */
export async function runPricesCommand(argv: string[], io: CommandIo): Promise<number> {
  return runSubcommands(PROGRAM, USAGE, io, argv, { list, set });
}

async function list(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { json: 'boolean', ...STORAGE_FLAGS });
  expectPositionals(positionals, []);
  const rows = await withStorage(flags, io.env, async (engine) =>
    (await openPricesRepository(engine)).list(),
  );
  if (flags.json) {
    io.stdout(JSON.stringify(rows, null, 2));
    return 0;
  }
  const header = ['MODEL', 'TEXT IN', 'IMAGE IN', 'TEXT OUT', 'IMAGE OUT', 'UPDATED'];
  const cells = rows.map((r) => [
    r.model,
    ...PRICE_FIELDS.map((f) => `$${formatMicros(r[f])}`),
    formatTime(r.updatedAt),
  ]);
  for (const line of formatTable(header, cells)) io.stdout(line);
  io.stdout('Dollars per 1M tokens.');
  return 0;
}

async function set(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    'text-input': 'string',
    'image-input': 'string',
    'text-output': 'string',
    'image-output': 'string',
    ...STORAGE_FLAGS,
  });
  const [model = ''] = expectPositionals(positionals, ['MODEL']);
  const prices: Partial<Prices> = {};
  for (const field of PRICE_FIELDS) {
    const value = flags[FLAG_OF[field] as keyof typeof flags];
    if (typeof value === 'string') prices[field] = dollarsToMicros(value);
  }
  if (Object.keys(prices).length === 0)
    throw new ArgsError('give at least one price, e.g. --image-output 30');
  const row = await withStorage(flags, io.env, async (engine) =>
    (await openPricesRepository(engine)).set(model, prices),
  );
  const summary = PRICE_FIELDS.map(
    (f) => `${FLAG_OF[f].replace('-', ' ')} $${formatMicros(row[f])}`,
  ).join(', ');
  io.stdout(`${row.model}: ${summary} per 1M tokens.`);
  return 0;
}
