/**
 * What to tell a person whose Atelier could not start, and what to offer: a desktop user has no
 * terminal, so the box must say what happened in their words and what to do next. Pure, so each
 * kind of failure is tested with the real error it comes from.
 */
export type StartupAction = 'open-data-folder' | 'reset-address' | 'quit';

export interface StartupFailure {
  title: string;
  /** One sentence: what happened. */
  message: string;
  /** What to do, and the technical cause for a bug report. */
  detail: string;
  /** Buttons in order; the last is Quit. */
  actions: StartupAction[];
}

export interface FailureContext {
  dataDir: string;
  /** The address the gateway tried to listen on, once known. */
  address?: { host: string; port: number };
}

const TITLE = 'Atelier could not start';

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Walks `cause` links: a wrapped SQLite or file-system error still says what it is. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && chain.length < 5;) {
    chain.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return chain;
}

const DB_LOCKED = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);
const NOT_WRITABLE = new Set([
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'ENOSPC',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_FULL',
]);
const LISTEN_REFUSED = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT', 'EADDRINUSE']);

export function describeStartupFailure(error: unknown, ctx: FailureContext): StartupFailure {
  const chain = causes(error);
  const find = (codes: Set<string>) => chain.find((e) => codes.has(codeOf(e) ?? ''));
  const cause = `Cause: ${messageOf(error)}`;

  if (chain.some((e) => (e as { name?: unknown }).name === 'KeychainUnavailableError')) {
    return {
      title: TITLE,
      message: 'Atelier cannot reach the system keychain, where it keeps account sign-ins.',
      // The keychain errors are written to be shown: they say how to get one, per platform.
      detail: messageOf(error),
      actions: ['quit'],
    };
  }
  if (find(DB_LOCKED)) {
    return {
      title: TITLE,
      message: 'Another Atelier is using the database in its data folder.',
      detail:
        `Close the other Atelier (a second copy of the app, or \`atelier serve\` in a terminal) ` +
        `that uses ${ctx.dataDir}, then start Atelier again.\n\n${cause}`,
      actions: ['open-data-folder', 'quit'],
    };
  }
  // Listening comes before the file checks: EACCES on a port is not a folder problem.
  const listen = chain.find(
    (e) => (e as { syscall?: unknown }).syscall === 'listen' || LISTEN_REFUSED.has(codeOf(e) ?? ''),
  );
  if (listen) {
    const where = ctx.address ? `${ctx.address.host}:${ctx.address.port}` : 'its address';
    const why =
      codeOf(listen) === 'EACCES'
        ? 'the system does not allow this program to use that port'
        : codeOf(listen) === 'EADDRINUSE'
          ? 'another program holds it'
          : 'that address is not available on this computer';
    return {
      title: TITLE,
      message: `Atelier could not serve on ${where}: ${why}.`,
      detail:
        'Other apps find Atelier at the address saved in Settings. Reset it to 127.0.0.1:8787 ' +
        `and start again, or quit and free the address.\n\n${cause}`,
      actions: ['reset-address', 'quit'],
    };
  }
  const unwritable = find(NOT_WRITABLE);
  if (unwritable) {
    const path = (unwritable as { path?: unknown }).path;
    return {
      title: TITLE,
      message: 'Atelier cannot write to its data folder.',
      detail:
        `The folder ${ctx.dataDir}${typeof path === 'string' && path !== ctx.dataDir ? ` (${path})` : ''} ` +
        'must belong to you and be writable: check its permissions and free disk space, or set ' +
        `ATELIER_DATA_DIR to another folder.\n\n${cause}`,
      actions: ['open-data-folder', 'quit'],
    };
  }
  return {
    title: TITLE,
    message: 'Atelier stopped while starting.',
    detail:
      `Starting again may help. If it does not, the data folder ${ctx.dataDir} holds the ` +
      `database; please report this message.\n\n${cause}`,
    actions: ['open-data-folder', 'quit'],
  };
}

export const ACTION_LABELS: Record<StartupAction, string> = {
  'open-data-folder': 'Open Data Folder',
  'reset-address': 'Reset Address and Restart',
  quit: 'Quit',
};
