import { ApiError } from '../core/errors';
import { databasePath, resolveDataDir } from '../core/dataDir';
import { openDatabase, type Db } from '../storage/db';
import type { SqlEngine } from '../storage/engine';
import { sqliteEngine } from '../storage/sqliteEngine';
import { ArgsError } from './args';

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
    if (error instanceof CommandError || error instanceof ApiError || error instanceof RangeError) {
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
 * Opens the same database the gateway uses (it may be running: WAL and the busy timeout make
 * that safe) for the length of one command.
 */
export function withDatabase<T>(
  dataDirFlag: string | undefined,
  env: NodeJS.ProcessEnv,
  use: (db: Db) => T,
): T {
  const db = openDatabase(databasePath(resolveDataDir(dataDirFlag, env)));
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/**
 * As withDatabase, through the storage port (the repositories converted to it, issue 21); `db`
 * is the same connection, for the repositories not converted yet.
 */
export async function withStorage<T>(
  dataDirFlag: string | undefined,
  env: NodeJS.ProcessEnv,
  use: (engine: SqlEngine, db: Db) => Promise<T>,
): Promise<T> {
  const db = openDatabase(databasePath(resolveDataDir(dataDirFlag, env)));
  const engine = sqliteEngine(db);
  try {
    return await use(engine, db);
  } finally {
    await engine.close();
  }
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
