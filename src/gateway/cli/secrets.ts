import { rotateSecretKey } from '../secrets/databaseStore';
import { SecretStoreError } from '../secrets/errors';
import {
  generateSecretKey,
  readSecretKeyFile,
  secretKeyFromEnv,
  type SecretKey,
} from '../secrets/secretKey';
import { parseArgs } from './args';
import {
  CommandError,
  expectPositionals,
  runSubcommands,
  STORAGE_FLAGS,
  withStorage,
  type CommandIo,
} from './command';

const PROGRAM = 'atelier secrets';
const USAGE = `usage:
  atelier secrets generate-key
      prints a new random key (32 bytes, base64) for ATELIER_SECRET_KEY or a key file
  atelier secrets rotate-key [--new-key-file FILE] [--data-dir DIR | --database postgres://...]
      seals every secret in the database again under the new key, in one transaction

  The key in use comes from ATELIER_SECRET_KEY or ATELIER_SECRET_KEY_FILE; the new one from
  --new-key-file, ATELIER_NEW_SECRET_KEY or ATELIER_NEW_SECRET_KEY_FILE. Secrets are kept in the
  database only where there is no OS keychain (docs/team.md, "Secrets").`;

/** `atelier secrets ...`: the key of the secrets a keychain-less gateway keeps in its database. */
export async function runSecretsCommand(argv: string[], io: CommandIo): Promise<number> {
  return runSubcommands(PROGRAM, USAGE, io, argv, {
    'generate-key': generateKey,
    'rotate-key': rotateKey,
  });
}

function generateKey(argv: string[], io: CommandIo): number {
  const { positionals } = parseArgs(argv, {});
  expectPositionals(positionals, []);
  io.stdout(generateSecretKey());
  return 0;
}

async function rotateKey(argv: string[], io: CommandIo): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    'new-key-file': 'string',
    ...STORAGE_FLAGS,
  });
  expectPositionals(positionals, []);
  const current = userFacing(() => secretKeyFromEnv(io.env));
  if (!current) {
    throw new CommandError(
      'The key in use is needed: set ATELIER_SECRET_KEY or ATELIER_SECRET_KEY_FILE.',
    );
  }
  const newKeyFile = flags['new-key-file'];
  const next = userFacing((): SecretKey | null =>
    newKeyFile === undefined
      ? secretKeyFromEnv(io.env, 'ATELIER_NEW_SECRET_KEY')
      : readSecretKeyFile(newKeyFile, '--new-key-file'),
  );
  if (!next) {
    throw new CommandError(
      'The new key is needed: --new-key-file FILE, ATELIER_NEW_SECRET_KEY or ATELIER_NEW_SECRET_KEY_FILE ' +
        '(make one with: atelier secrets generate-key).',
    );
  }
  const count = await withStorage(flags, io.env, (engine) =>
    userFacingAsync(() => rotateSecretKey(engine, current, next)),
  );
  io.stdout(`Sealed ${count} secret(s) again: key ${current.id} -> ${next.id}.`);
  io.stdout('Start every gateway with the new key now; one still on the old key refuses them.');
  return 0;
}

/** A secret store's refusal is something the user fixes: shown as a command error. */
function userFacing<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof SecretStoreError) throw new CommandError(error.message);
    throw error;
  }
}

async function userFacingAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof SecretStoreError) throw new CommandError(error.message);
    throw error;
  }
}
