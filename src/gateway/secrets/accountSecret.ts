import { inspect } from 'node:util';
import { z } from 'zod';
import { SecretStoreError } from './errors';
import type { AccountSecret, SecretStore } from './types';

const accountSecretSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('api_key'), apiKey: z.string().min(1) }),
  z.object({
    type: z.literal('oauth'),
    accessToken: z.string().min(1),
    refreshToken: z.string(),
    idToken: z.string(),
    expiresAt: z.number().int().nullable(),
  }),
]) satisfies z.ZodType<AccountSecret>;

/** The account's secret, or null when none is stored under `name`. */
export async function readAccountSecret(
  store: SecretStore,
  name: string,
): Promise<AccountSecret | null> {
  const raw = await store.get(name);
  if (raw === null) return null;
  return guarded(parse(name, parseJson(raw)));
}

export async function writeAccountSecret(
  store: SecretStore,
  name: string,
  secret: AccountSecret,
): Promise<void> {
  // Parsing first rebuilds a plain object of known fields only: nothing else reaches the store, and
  // a guarded secret (whose toJSON is redacted) serialises as its real value.
  await store.set(name, JSON.stringify(parse(name, secret)));
}

function parse(name: string, value: unknown): AccountSecret {
  const result = accountSecretSchema.safeParse(value);
  if (result.success) return result.data;
  // Paths and issue codes only: zod's messages may quote the value, which may be a token.
  const where = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.code}`);
  throw new SecretStoreError(
    'bad_secret',
    `Secret "${name}" is not a valid account secret (${where.join('; ')}).`,
  );
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * Makes a secret safe to log by accident: util.inspect (console.log, vitest diffs), String() and
 * JSON.stringify show its type and "[redacted]". The fields stay readable as usual; the guards are
 * non-enumerable, so a spread copy (`{ ...secret }`) is a plain object again: don't log one.
 */
export function guarded<T extends AccountSecret>(secret: T): T {
  const shown = `AccountSecret { type: '${secret.type}', [redacted] }`;
  Object.defineProperties(secret, {
    [inspect.custom]: { value: () => shown },
    toString: { value: () => shown },
    toJSON: { value: () => ({ type: secret.type, redacted: true }) },
  });
  return secret;
}
