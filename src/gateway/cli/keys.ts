import { maskedKey } from '../keys/apiKeys';
import {
  createKeysRepository,
  type ApiKeyRecord,
  type KeysRepository,
} from '../storage/keysRepository';
import { ArgsError, parseArgs } from './args';
import {
  CommandError,
  expectPositionals,
  formatTable,
  formatTime,
  runSubcommands,
  withDatabase,
  type CommandIo,
} from './command';

const PROGRAM = 'atelier keys';
const USAGE = `usage:
  atelier keys create --name NAME [--group GROUP] [--concurrency N]   make a key (printed once)
  atelier keys list [--all] [--json]                                  keys, never their secrets
  atelier keys disable ID | enable ID | delete ID

  --all lists deleted keys too. Every command takes --data-dir DIR (default: ATELIER_DATA_DIR,
  else the app-data folder the desktop app uses). A running gateway sees changes at once.`;

/**
 * `atelier keys ...`; `argv` is what follows `keys`. Exit codes: 0 done, 1 failed (unknown id,
 * invalid name), 2 malformed command line. `create` prints the key alone on the last line of
 * stdout, so scripts can take it with `| tail -n 1`.
 */
export async function runKeysCommand(argv: string[], io: CommandIo): Promise<number> {
  return runSubcommands(PROGRAM, USAGE, io, argv, {
    create,
    list,
    disable: (rest) => change('disable', rest, io),
    enable: (rest) => change('enable', rest, io),
    delete: (rest) => change('delete', rest, io),
  });
}

function create(argv: string[], io: CommandIo): number {
  const { flags, positionals } = parseArgs(argv, {
    name: 'string',
    group: 'string',
    concurrency: 'string',
    'data-dir': 'string',
  });
  expectPositionals(positionals, []);
  const name = flags.name;
  if (name === undefined) throw new ArgsError('--name is required');
  const concurrency = flags.concurrency === undefined ? null : Number(flags.concurrency);
  const { key, record } = withDatabase(flags['data-dir'], io.env, (db) =>
    createKeysRepository(db).create({
      name,
      group: flags.group,
      concurrencyLimit: concurrency,
    }),
  );
  io.stdout(`Created key ${record.id} "${record.name}" in group "${record.group}".`);
  io.stdout(
    'Copy it now: it is shown only this once and cannot be recovered (only its hash is stored).',
  );
  io.stdout(key);
  return 0;
}

function list(argv: string[], io: CommandIo): number {
  const { flags, positionals } = parseArgs(argv, {
    all: 'boolean',
    json: 'boolean',
    'data-dir': 'string',
  });
  expectPositionals(positionals, []);
  const records = withDatabase(flags['data-dir'], io.env, (db) =>
    createKeysRepository(db).list({ includeDeleted: flags.all }),
  );
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
    ]);
    for (const line of formatTable(
      ['ID', 'NAME', 'GROUP', 'KEY', 'STATUS', 'CREATED', 'LAST USED'],
      rows,
    )) {
      io.stdout(line);
    }
  }
  return 0;
}

function change(action: 'disable' | 'enable' | 'delete', argv: string[], io: CommandIo): number {
  const { flags, positionals } = parseArgs(argv, { 'data-dir': 'string' });
  const [id = ''] = expectPositionals(positionals, ['ID']);
  const record = withDatabase(flags['data-dir'], io.env, (db) => {
    const keys = createKeysRepository(db);
    const current = existing(keys, id);
    if (action === 'delete') keys.remove(id);
    else keys.setStatus(id, action === 'enable' ? 'active' : 'disabled');
    return current;
  });
  const done = { disable: 'Disabled', enable: 'Enabled', delete: 'Deleted' }[action];
  io.stdout(`${done} key ${id} "${record.name}".`);
  return 0;
}

/** The key, or a CommandError that says why it cannot be changed. */
function existing(keys: KeysRepository, id: string): ApiKeyRecord {
  const record = keys.get(id);
  if (!record) throw new CommandError(`no key with id '${id}' (see: atelier keys list)`);
  if (record.status === 'deleted')
    throw new CommandError(`key '${id}' is deleted; make a new one instead`);
  return record;
}
