import { maskedKey } from '../keys/apiKeys';
import { createUsageLedger } from '../limits/ledger';
import { hasLimits, limitsOf } from '../limits/keyLimits';
import { keyLimitUse } from '../limits/limiter';
import { createKeysRepository, type ApiKeyRecord, type KeysRepository } from '../keys/repository';
import { ArgsError, parseArgs } from './args';
import { CLEAR_ALL_LIMITS, describeLimits, LIMIT_FLAGS, limitsFromFlags } from './keyLimitFlags';
import {
  CommandError,
  expectPositionals,
  formatTable,
  formatTime,
  runSubcommands,
  STORAGE_FLAGS,
  withStorage,
  type CommandIo,
} from './command';

const PROGRAM = 'atelier keys';
const USAGE = `usage:
  atelier keys create --name NAME [--group GROUP] [--concurrency N] [LIMITS]   make a key (printed once)
  atelier keys limit ID|NAME [LIMITS] [--none]                                 change a key's limits
  atelier keys list [--all] [--json]                keys with their limits and use, never their secrets
  atelier keys disable ID | enable ID | delete ID

  LIMITS: --budget USD [--budget-period day|month|total]   spend per period (default month)
          --rpm N                                          requests in any 60 seconds
          --images-per-day N                               images per UTC day
          --expires YYYY-MM-DD                             the UTC day the key stops working
  Any of them takes 'none' to clear it; --none clears them all. Days and months are UTC.
  --all lists deleted keys too. Every command takes --data-dir DIR (default: ATELIER_DATA_DIR,
  else the app-data folder the desktop app uses), or --database postgres://... (default:
  ATELIER_DATABASE_URL) for a team gateway's database. A running gateway sees changes at once.`;

/**
 * `atelier keys ...`; `argv` is what follows `keys`. Exit codes: 0 done, 1 failed (unknown id,
 * invalid name), 2 malformed command line. `create` prints the key alone on the last line of
 * stdout, so scripts can take it with `| tail -n 1`.
 */
export async function runKeysCommand(argv: string[], io: CommandIo): Promise<number> {
  return runSubcommands(PROGRAM, USAGE, io, argv, {
    create,
    list,
    limit,
    disable: (rest) => change('disable', rest, io),
    enable: (rest) => change('enable', rest, io),
    delete: (rest) => change('delete', rest, io),
  });
}

async function create(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    name: 'string',
    group: 'string',
    concurrency: 'string',
    ...LIMIT_FLAGS,
    ...STORAGE_FLAGS,
  });
  expectPositionals(positionals, []);
  const name = flags.name;
  if (name === undefined) throw new ArgsError('--name is required');
  const concurrency = flags.concurrency === undefined ? null : Number(flags.concurrency);
  const limits = limitsFromFlags(flags);
  const { key, record } = await withStorage(flags, io.env, (engine) =>
    createKeysRepository(engine).create({
      name,
      group: flags.group,
      concurrencyLimit: concurrency,
      ...limits,
    }),
  );
  io.stdout(`Created key ${record.id} "${record.name}" in group "${record.group}".`);
  if (hasLimits(record)) {
    const unused = {
      budgetUsedMicros: 0,
      budgetResetsAt: null,
      imagesToday: 0,
      requestsLastMinute: 0,
    };
    io.stdout(`Limits: ${describeLimits(limitsOf(record), unused, Date.now())}.`);
  }
  io.stdout(
    'Copy it now: it is shown only this once and cannot be recovered (only its hash is stored).',
  );
  io.stdout(key);
  return 0;
}

async function list(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    all: 'boolean',
    json: 'boolean',
    ...STORAGE_FLAGS,
  });
  expectPositionals(positionals, []);
  const now = Date.now();
  const records = await withStorage(flags, io.env, async (engine) => {
    const ledger = createUsageLedger(engine);
    const keys = await createKeysRepository(engine).list({ includeDeleted: flags.all });
    return Promise.all(
      keys.map(async (r) => ({
        ...r,
        limitUse: await keyLimitUse(ledger, { id: r.id, limits: limitsOf(r) }, now),
      })),
    );
  });
  if (flags.json) {
    io.stdout(JSON.stringify(records, null, 2));
  } else if (records.length === 0) {
    io.stdout('No keys yet. Make one with: atelier keys create --name NAME');
  } else {
    const rows = records.map((r) => [
      r.id,
      r.name,
      r.group,
      maskedKey(r.prefix),
      r.status,
      formatTime(r.createdAt),
      formatTime(r.lastUsedAt),
      describeLimits(limitsOf(r), r.limitUse, now),
    ]);
    for (const line of formatTable(
      ['ID', 'NAME', 'GROUP', 'KEY', 'STATUS', 'CREATED', 'LAST USED', 'LIMITS (USED OF LIMIT)'],
      rows,
    )) {
      io.stdout(line);
    }
  }
  return 0;
}

/** `keys limit ID|NAME [LIMITS] [--none]`: the flags given change, the others stay. */
async function limit(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    ...LIMIT_FLAGS,
    none: 'boolean',
    ...STORAGE_FLAGS,
  });
  const [idOrName = ''] = expectPositionals(positionals, ['ID|NAME']);
  const patch = limitsFromFlags(flags);
  if (flags.none && Object.keys(patch).length > 0)
    throw new ArgsError('--none clears every limit: give it alone, or set limits without it');
  if (!flags.none && Object.keys(patch).length === 0)
    throw new ArgsError(
      'give a limit to set (--budget, --rpm, --images-per-day, --expires) or --none',
    );
  const now = Date.now();
  const { record, use } = await withStorage(flags, io.env, async (engine) => {
    const keys = createKeysRepository(engine);
    const current = await existing(keys, await resolveKey(keys, idOrName));
    const updated = (await keys.update(current.id, flags.none ? CLEAR_ALL_LIMITS : patch))!;
    const use = await keyLimitUse(
      createUsageLedger(engine),
      { id: updated.id, limits: limitsOf(updated) },
      now,
    );
    return { record: updated, use };
  });
  io.stdout(
    `Limits of key ${record.id} "${record.name}": ${describeLimits(limitsOf(record), use, now)}.`,
  );
  return 0;
}

/** A key id, or the name of exactly one key that is not deleted. */
async function resolveKey(keys: KeysRepository, idOrName: string): Promise<string> {
  if (await keys.get(idOrName)) return idOrName;
  const named = (await keys.list()).filter((k) => k.name === idOrName);
  if (named.length > 1)
    throw new CommandError(
      `${named.length} keys are named '${idOrName}' (${named.map((k) => k.id).join(', ')}): give the id`,
    );
  return named[0]?.id ?? idOrName;
}

async function change(
  action: 'disable' | 'enable' | 'delete',
  argv: string[],
  io: CommandIo,
): Promise<number> {
  const { flags, positionals } = parseArgs(argv, STORAGE_FLAGS);
  const [id = ''] = expectPositionals(positionals, ['ID']);
  const record = await withStorage(flags, io.env, async (engine) => {
    const keys = createKeysRepository(engine);
    const current = await existing(keys, id);
    if (action === 'delete') await keys.remove(id);
    else await keys.setStatus(id, action === 'enable' ? 'active' : 'disabled');
    return current;
  });
  const done = { disable: 'Disabled', enable: 'Enabled', delete: 'Deleted' }[action];
  io.stdout(`${done} key ${id} "${record.name}".`);
  return 0;
}

/** The key, or a CommandError that says why it cannot be changed. */
async function existing(keys: KeysRepository, id: string): Promise<ApiKeyRecord> {
  const record = await keys.get(id);
  if (!record) throw new CommandError(`no key with id '${id}' (see: atelier keys list)`);
  if (record.status === 'deleted')
    throw new CommandError(`key '${id}' is deleted; make a new one instead`);
  return record;
}
