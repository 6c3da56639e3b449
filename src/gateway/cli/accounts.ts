import { openAccountsRepository, type AccountsRepository } from '../accounts/repository';
import { accountStatus } from '../accounts/status';
import { addApiKeyAccount, addSimulatorAccount, type AccountOptions } from '../accounts/service';
import type { AccountRecord } from '../core/domain';
import { resolveDataDir } from '../core/dataDir';
import { openSecretStore } from '../secrets';
import type { SqlEngine } from '../storage/engine';
import { ArgsError, parseArgs } from './args';
import { login } from './accountsLogin';
import {
  CommandError,
  expectPositionals,
  formatTable,
  formatTime,
  runSubcommands,
  STORAGE_FLAGS,
  withStorage,
  type CommandIo,
  type StorageLocation,
} from './command';

const PROGRAM = 'atelier accounts';
const USAGE = `usage:
  atelier accounts list [--json]                                   accounts, load limits and why any is resting
  atelier accounts add-key --name NAME --base-url URL [--tier api] [--group G] [--capacity 4] [--max-pixels N]
                                                                   an API-key account; the key is read from
                                                                   ATELIER_ACCOUNT_KEY or standard input
  atelier accounts login --name NAME [--issuer URL] [--base-url URL] [--bridge-model M] [--group G]
                         [--capacity 2] [--port 1455] [--no-browser]
                                                                   a subscription account: sign in in the browser
  atelier accounts add-simulator --name NAME [--tier pro] [--group G] [--capacity 4] [--max-pixels N]
  atelier accounts set ID|NAME [--capacity N] [--tier T] [--group G] [--max-pixels N] [--bridge-model M]
  atelier accounts enable|disable|remove|clear-cooldown ID|NAME
options on every command: --data-dir DIR (the data folder's SQLite file), or --database
  postgres://... (or ATELIER_DATABASE_URL) for a team gateway's database, whose secrets are sealed
  under ATELIER_SECRET_KEY or ATELIER_SECRET_KEY_FILE (docs/team.md)`;

const COMMON = {
  name: 'string',
  tier: 'string',
  group: 'string',
  capacity: 'string',
  'max-pixels': 'string',
  ...STORAGE_FLAGS,
} as const;

export async function runAccountsCommand(argv: string[], io: CommandIo): Promise<number> {
  return runSubcommands(PROGRAM, USAGE, io, argv, {
    list,
    'add-key': addKey,
    'add-simulator': addSimulator,
    login,
    set,
    enable: (rest) => toggle(rest, io, 'enable'),
    disable: (rest) => toggle(rest, io, 'disable'),
    remove: (rest) => toggle(rest, io, 'remove'),
    'clear-cooldown': (rest) => toggle(rest, io, 'clear-cooldown'),
  });
}

async function open<T>(
  where: StorageLocation,
  env: NodeJS.ProcessEnv,
  use: (repo: AccountsRepository, dataDir: string, engine: SqlEngine) => Promise<T>,
): Promise<T> {
  const dataDir = resolveDataDir(where['data-dir'], env);
  return withStorage(where, env, async (engine) =>
    // The engine is also where the secrets are, when kept in the database.
    use(await openAccountsRepository(engine), dataDir, engine),
  );
}

function positiveInt(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new ArgsError(`--${flag} must be a whole number of at least 1`);
  return n;
}

function required(flag: string, value: string | undefined): string {
  if (!value) throw new ArgsError(`--${flag} is required`);
  return value;
}

async function list(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { json: 'boolean', ...STORAGE_FLAGS });
  expectPositionals(positionals, []);
  const records = await open(flags, io.env, (repo) => repo.list());
  const now = Date.now();
  if (flags.json) {
    io.stdout(
      JSON.stringify(
        records.map((r) => ({ ...r, status: accountStatus(r, now) })),
        null,
        2,
      ),
    );
    return 0;
  }
  if (records.length === 0) {
    io.stdout('No upstream accounts: the built-in offline simulator serves every request.');
    io.stdout('Add one with: atelier accounts add-key --name NAME --base-url URL');
    return 0;
  }
  const rows = records.map((r) => {
    const status = accountStatus(r, now);
    return [
      r.id,
      r.name,
      r.kind,
      r.tier,
      r.groupName,
      String(r.capacity),
      `${(r.maxPixels / 1e6).toFixed(1)} MP`,
      status.state,
      formatTime(r.createdAt),
    ];
  });
  for (const line of formatTable(
    ['ID', 'NAME', 'KIND', 'TIER', 'GROUP', 'CAPACITY', 'MAX OUTPUT', 'STATUS', 'ADDED'],
    rows,
  ))
    io.stdout(line);
  for (const r of records) {
    const status = accountStatus(r, now);
    if (status.detail) io.stdout(`${r.name}: ${status.state}: ${status.detail}`);
  }
  return 0;
}

async function readKey(io: CommandIo): Promise<string> {
  const fromEnv = io.env.ATELIER_ACCOUNT_KEY?.trim();
  if (fromEnv) return fromEnv;
  const fromStdin = io.readStdin ? (await io.readStdin())?.trim() : '';
  if (!fromStdin) {
    throw new CommandError(
      'no API key given: set ATELIER_ACCOUNT_KEY or pipe the key on standard input (never as a flag: it would stay in your shell history)',
    );
  }
  return fromStdin;
}

async function addKey(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { ...COMMON, 'base-url': 'string' });
  expectPositionals(positionals, []);
  const baseUrl = required('base-url', flags['base-url']);
  try {
    new URL(baseUrl);
  } catch {
    throw new ArgsError(
      `--base-url is not a URL: '${baseUrl}' (for example https://api.example.com/v1)`,
    );
  }
  const options = accountOptions(flags);
  const apiKey = await readKey(io);
  const dataDir = resolveDataDir(flags['data-dir'], io.env);
  const { record, store } = await open(flags, io.env, (accounts, _dir, engine) =>
    addApiKeyAccount(
      { accounts, dataDir, secrets: () => openSecretStore({ dataDir, env: io.env, engine }) },
      { ...options, baseUrl, apiKey },
    ),
  );
  io.stdout(
    `Added API-key account ${record.id} "${record.name}" (group ${record.groupName}); its key is in the ${store}.`,
  );
  return 0;
}

async function addSimulator(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, COMMON);
  expectPositionals(positionals, []);
  const options = accountOptions(flags);
  const record = await open(flags, io.env, (repo) => addSimulatorAccount(repo, options));
  io.stdout(`Added simulator account ${record.id} "${record.name}" (group ${record.groupName}).`);
  return 0;
}

function accountOptions(flags: {
  name?: string;
  tier?: string;
  group?: string;
  capacity?: string;
  'max-pixels'?: string;
}): AccountOptions {
  return {
    name: required('name', flags.name),
    tier: flags.tier,
    group: flags.group,
    capacity: flags.capacity === undefined ? undefined : positiveInt('capacity', flags.capacity, 1),
    maxPixels:
      flags['max-pixels'] === undefined
        ? undefined
        : positiveInt('max-pixels', flags['max-pixels'], 1),
  };
}

async function set(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { ...COMMON, 'bridge-model': 'string' });
  const [ref = ''] = expectPositionals(positionals, ['ID']);
  const updated = await open(flags, io.env, async (repo) => {
    const account = await find(repo, ref);
    return (await repo.update(account.id, {
      name: flags.name,
      tier: flags.tier,
      groupName: flags.group,
      capacity:
        flags.capacity === undefined ? undefined : positiveInt('capacity', flags.capacity, 1),
      maxPixels:
        flags['max-pixels'] === undefined
          ? undefined
          : positiveInt('max-pixels', flags['max-pixels'], 1),
      bridgeModel: flags['bridge-model'],
    }))!;
  });
  io.stdout(`Updated account ${updated.id} "${updated.name}".`);
  return 0;
}

async function toggle(
  argv: string[],
  io: CommandIo,
  action: 'enable' | 'disable' | 'remove' | 'clear-cooldown',
): Promise<number> {
  const { flags, positionals } = parseArgs(argv, STORAGE_FLAGS);
  const [ref = ''] = expectPositionals(positionals, ['ID']);
  const account = await open(flags, io.env, async (repo) => {
    const found = await find(repo, ref);
    if (action === 'remove') await repo.remove(found.id);
    else if (action === 'clear-cooldown') await repo.setCooldown(found.id, null, null);
    // Enabling also clears an out-of-service reason: the user is saying "try it again".
    else
      await repo.update(
        found.id,
        action === 'enable' ? { enabled: true, disabledReason: null } : { enabled: false },
      );
    return found;
  });
  const done = {
    enable: 'Enabled',
    disable: 'Disabled',
    remove: 'Removed',
    'clear-cooldown': 'Cleared the cooldown of',
  }[action];
  io.stdout(`${done} account ${account.id} "${account.name}".`);
  return 0;
}

async function find(repo: AccountsRepository, ref: string): Promise<AccountRecord> {
  const found = await repo.find(ref);
  if (!found) throw new CommandError(`no account '${ref}' (see: atelier accounts list)`);
  return found;
}
