import fs from 'node:fs/promises';
import path from 'node:path';
import { removeFiles, writeFileAtomic } from './files';

export interface WorkFile {
  key: string;
  bytes: number;
}

/** Why a file was not kept: the caller turns it into a 413 naming the limit. */
export class WorkFilesFull extends Error {
  constructor(readonly limit: number) {
    super(`The studio's work files would pass ${limit} bytes together.`);
  }
}

export interface WorkFiles {
  readonly dir: string;
  list(): Promise<WorkFile[]>;
  /** The file's path when it is kept, else null. */
  find(key: string): Promise<string | null>;
  /** Keeps the bytes under the key (replacing), unless all files would pass `maxBytes`. */
  put(key: string, bytes: Buffer): Promise<void>;
  remove(key: string): Promise<boolean>;
}

/**
 * The studio's work in progress as files (Edit's reference images, chain steps and mask), one
 * file per key in one folder of the data folder, so a reload, another port or another browser
 * finds them (issue 22). Keys are checked by the route (`STUDIO_WORK_KEY`) before they get here.
 * Writes run one at a time, so the total checked before a write is the total after it.
 */
export function createWorkFiles(dir: string, maxBytes: number): WorkFiles {
  const fileOf = (key: string) => path.join(dir, `${key}.bin`);
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const list = async (): Promise<WorkFile[]> => {
    const names = await fs.readdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    const files = await Promise.all(
      names
        .filter((name) => name.endsWith('.bin'))
        .map(async (name) => {
          const stat = await fs.stat(path.join(dir, name)).catch(() => null);
          return stat ? { key: name.slice(0, -'.bin'.length), bytes: stat.size } : null;
        }),
    );
    return files.filter((file) => file !== null).sort((a, b) => a.key.localeCompare(b.key));
  };

  return {
    dir,
    list,
    async find(key) {
      const file = fileOf(key);
      const stat = await fs.stat(file).catch(() => null);
      return stat?.isFile() ? file : null;
    },
    put: (key, bytes) =>
      serial(async () => {
        const others = (await list()).filter((file) => file.key !== key);
        const total = others.reduce((sum, file) => sum + file.bytes, 0) + bytes.length;
        if (total > maxBytes) throw new WorkFilesFull(maxBytes);
        await writeFileAtomic(fileOf(key), bytes);
      }),
    remove: (key) =>
      serial(async () => {
        const file = fileOf(key);
        const had = await fs.stat(file).then(
          () => true,
          () => false,
        );
        if (had) await removeFiles([file]);
        return had;
      }),
  };
}
