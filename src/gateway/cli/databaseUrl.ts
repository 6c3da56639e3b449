import { ArgsError } from './args';

/**
 * The PostgreSQL database a command works on: `--database`, else ATELIER_DATABASE_URL; undefined
 * (neither given, or the variable empty) means the data folder's SQLite file. Only the scheme is
 * checked here: the server says what else is wrong when the command connects.
 */
export function databaseUrlOf(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const value = flag ?? (env.ATELIER_DATABASE_URL || undefined);
  if (value === undefined) return undefined;
  const source = flag === undefined ? 'ATELIER_DATABASE_URL' : '--database';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ArgsError(`${source} must be a PostgreSQL URL, postgres://user@host:5432/name`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ArgsError(
      `${source} must be a PostgreSQL URL (postgres:// or postgresql://), got '${url.protocol}'`,
    );
  }
  return value;
}
