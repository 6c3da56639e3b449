import { parseArgs as nodeParseArgs } from 'node:util';

/** Flag name (without `--`) -> its kind. */
export type FlagSpec = Readonly<Record<string, 'string' | 'boolean'>>;

/** String flags are undefined when absent; boolean flags are false. */
export type Flags<S extends FlagSpec> = {
  [K in keyof S]: S[K] extends 'boolean' ? boolean : string | undefined;
};

export interface ParsedArgs<S extends FlagSpec> {
  flags: Flags<S>;
  positionals: string[];
}

/** A mistake on the command line: the command prints it with its usage and exits 2. */
export class ArgsError extends Error {
  override readonly name = 'ArgsError';
}

/**
 * Parses `--flag value`, `--flag=value`, boolean `--flag` and positionals (anything after `--` is
 * positional). node:util does the parsing; this adds the types and error messages that name the
 * flag and list the known ones.
 */
export function parseArgs<S extends FlagSpec>(argv: readonly string[], spec: S): ParsedArgs<S> {
  const end = argv.indexOf('--');
  for (const token of end < 0 ? argv : argv.slice(0, end)) {
    if (!token.startsWith('-') || token === '-') continue;
    const name = token.replace(/^--?/, '').split('=')[0] ?? '';
    if (!token.startsWith('--') || !Object.hasOwn(spec, name)) {
      const known = Object.keys(spec).map((f) => `--${f}`);
      throw new ArgsError(
        `unknown option ${token.split('=')[0]}${known.length ? ` (known: ${known.join(', ')})` : ''}`,
      );
    }
  }

  let parsed;
  try {
    parsed = nodeParseArgs({
      args: [...argv],
      options: Object.fromEntries(Object.entries(spec).map(([name, type]) => [name, { type }])),
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    // node's messages are right but long; their first line says what is wrong.
    throw new ArgsError((error as Error).message.split('\n')[0] ?? String(error));
  }

  const flags: Record<string, string | boolean | undefined> = {};
  for (const [name, type] of Object.entries(spec)) {
    const value = parsed.values[name];
    flags[name] =
      type === 'boolean' ? value === true : typeof value === 'string' ? value : undefined;
  }
  return { flags: flags as Flags<S>, positionals: parsed.positionals };
}
