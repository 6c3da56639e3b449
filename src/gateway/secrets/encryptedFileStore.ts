import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { SecretStoreError } from './errors';
import {
  decrypt,
  deriveKey,
  encrypt,
  newHeader,
  parseHeader,
  type Header,
  type SecretTable,
} from './secretFile';
import type { SecretStore } from './types';

export interface EncryptedFileStore extends SecretStore {
  readonly kind: 'encrypted-file';
  readonly file: string;
  /** Decrypts the file when there is one, so a wrong passphrase shows at start, not on first use. */
  probe(): Promise<void>;
}

/**
 * Secrets in one file encrypted with a key derived from the user's passphrase. Only for users who
 * explicitly chose it (no keychain on the machine); the keychain is the default everywhere.
 *
 * Every change rewrites the whole file atomically (temp file, fsync, rename), so a crash or a
 * concurrent reader sees the old file or the new one, never half of one. The file is read again on
 * every call: a CLI process adding a secret is seen by a running gateway without a restart.
 */
export function createEncryptedFileStore(opts: {
  file: string;
  passphrase: string;
}): EncryptedFileStore {
  const file = path.resolve(opts.file);
  const { passphrase } = opts;
  if (!passphrase) {
    throw new SecretStoreError('bad_config', 'The encrypted secret file needs a passphrase.');
  }

  // One derived key per salt; the passphrase and the key live only in this closure, so neither
  // shows in util.inspect or JSON of the store.
  let derived: { id: string; key: Promise<Buffer> } | null = null;
  const keyFor = (header: Header): Promise<Buffer> => {
    const id = `${header.log2N}:${header.r}:${header.p}:${header.salt.toString('hex')}`;
    if (derived?.id !== id) derived = { id, key: deriveKey(passphrase, header) };
    return derived.key;
  };

  const load = async (): Promise<{ header: Header; secrets: SecretTable } | null> => {
    const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (!bytes) return null;
    const header = parseHeader(bytes, file);
    const secrets = decrypt(bytes, await keyFor(header), file);
    return { header, secrets };
  };

  // Changes in this process queue behind each other so that two concurrent sets both land.
  let queue: Promise<unknown> = Promise.resolve();
  const change = (apply: (secrets: SecretTable) => boolean): Promise<void> => {
    const next = queue.then(async () => {
      const current = await load();
      const secrets = current?.secrets ?? new Map<string, string>();
      if (!apply(secrets)) return;
      const header = current?.header ?? newHeader();
      await writeAtomically(file, encrypt(secrets, header, await keyFor(header)));
    });
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    kind: 'encrypted-file',
    file,
    async get(name) {
      checkName(name);
      const current = await load();
      return current?.secrets.get(name) ?? null;
    },
    set(name, value) {
      checkName(name);
      return change((secrets) => {
        secrets.set(name, value);
        return true;
      });
    },
    delete(name) {
      checkName(name);
      return change((secrets) => secrets.delete(name));
    },
    async probe() {
      await load();
    },
  };
}

function checkName(name: string): void {
  if (!name) throw new SecretStoreError('bad_config', 'A secret needs a non-empty name.');
}

async function writeAtomically(file: string, data: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    // 'wx' with 0600 from the first byte: the secrets are never readable by others, even briefly.
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDirectory(path.dirname(file));
}

/** Makes the rename itself durable. Windows cannot open a directory for this; best effort there. */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
