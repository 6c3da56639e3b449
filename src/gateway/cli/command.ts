import { ApiError } from '../core/errors';
import { databasePath, resolveDataDir } from '../core/dataDir';
import { SecretStoreError } from '../secrets/errors';
import { openDatabase } from '../storage/db';
import type { SqlEngine } from '../storage/engine';
import { openPostgresDatabase } from '../storage/postgresEngine';
import { sqliteEngine } from '../storage/sqliteEngine';
import { ArgsError } from './args';
import { databaseUrlOf } from './databaseUrl';

/** What the keys and prices commands use of the process (cli/io.ts's CliIo satisfies it). */
export interface CommandIo {
  stdout(line: string): void;
  stderr(line: string): void;
  env: NodeJS.ProcessEnv;
  /** All of standard input when it is piped; null when it is a terminal (nothing to read). */
  readStdin?: () => Promise<string | null>;
}

/** A mistake the user can fix; its message is shown as is, without a stack. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
}

/**
 * Runs a command body and maps failures to exit codes: 2 for a malformed command line (with the
 * usage), 1 for anything else the user can act on. Unexpected errors propagate: they are bugs.
 */
export async function runCommand(
  program: string,
  usage: string,
  io: CommandIo,
  body: () => number | Promise<number>,
): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ArgsError) {
      io.stderr(`${program}: ${error.message}\n\n${usage}`);
      return 2;
    }
    // A secret store that cannot be opened as configured (no key, another key, no keychain) is
    // fixed by the person running the command: its message says how.
    if (
      error instanceof CommandError ||
      error instanceof ApiError ||
      error instanceof RangeError ||
      error instanceof SecretStoreError
    ) {
      io.stderr(`${program}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

export type Subcommand = (argv: string[], io: CommandIo) => number | Promise<number>;

/** `PROGRAM SUB ...`: runs the named subcommand, with help and usage errors handled once. */
export function runSubcommands(
  program: string,
  usage: string,
  io: CommandIo,
  argv: string[],
  subcommands: Record<string, Subcommand>,
): Promise<number> {
  return runCommand(program, usage, io, () => {
    const [sub, ...rest] = argv;
    if (sub === 'help' || sub === '--help' || sub === '-h') {
      io.stdout(usage);
      return 0;
    }
    if (sub === undefined) throw new ArgsError('missing subcommand');
    const run = Object.hasOwn(subcommands, sub) ? subcommands[sub] : undefined;
    if (!run) throw new ArgsError(`unknown subcommand '${sub}'`);
    return run(rest, io);
  });
}

/**
 * Where a storage command's database is: the PostgreSQL of `--database` (or
 * ATELIER_DATABASE_URL), the one a team gateway's instances share; else the SQLite file of the
 * data folder (`--data-dir`, ATELIER_DATA_DIR, the app-data folder). Spread into a command's flags.
 */
export const STORAGE_FLAGS = { 'data-dir': 'string', database: 'string' } as const;

export interface StorageLocation {
  'data-dir'?: string | undefined;
  database?: string | undefined;
}

/**
 * Opens the database the gateway uses for the length of one command, through the storage port. A
 * running gateway is no obstacle: SQLite's WAL and busy timeout, or PostgreSQL itself; a change
 * is announced (PostgreSQL NOTIFY), so the running instances see it at once.
 */
export async function withStorage<T>(
  where: StorageLocation,
  env: NodeJS.ProcessEnv,
  use: (engine: SqlEngine) => Promise<T>,
): Promise<T> {
  const databaseUrl = databaseUrlOf(where.database, env);
  const engine =
    databaseUrl === undefined
      ? sqliteEngine(openDatabase(databasePath(resolveDataDir(where['data-dir'], env))))
      : await openTeamDatabase(databaseUrl);
  try {
    return await use(engine);
  } finally {
    await engine.close();
  }
}

/** The team database, migrated as an instance would (one at a time); its failure said plainly. */
async function openTeamDatabase(url: string): Promise<SqlEngine> {
  try {
    return await openPostgresDatabase({ url, max: 4 });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CommandError(`cannot open the database ${redacted(url)}: ${reason}`);
  }
}

/** The URL without its password, for a message that may end up in a log. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** Left-aligned columns separated by two spaces. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** Local time to the minute: what a person reading a table wants. */
export function formatTime(ms: number | null): string {
  if (ms === null) return 'never';
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** Exactly one positional per name, or an ArgsError naming what is missing or extra. */
export function expectPositionals(positionals: string[], names: readonly string[]): string[] {
  if (positionals.length < names.length) {
    throw new ArgsError(`missing ${names.slice(positionals.length).join(' ')}`);
  }
  if (positionals.length > names.length) {
    throw new ArgsError(`unexpected argument '${positionals[names.length]}'`);
  }
  return positionals;
}
