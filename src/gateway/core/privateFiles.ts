import fs from 'node:fs';
import path from 'node:path';

/**
 * The data folder holds key hashes, other apps' prompts in the usage log, and every kept image:
 * on POSIX it is 0700 and its files 0600, so other local users can read none of it. New files
 * are safe inside the 0700 folder whatever their own mode; this also repairs folders and files
 * that earlier versions (or a copy from elsewhere) left readable, on every start.
 *
 * Windows has no such modes (its ACLs keep a profile's AppData private): nothing to do there.
 */
export function makeDataDirPrivate(
  dataDir: string,
  platform: NodeJS.Platform = process.platform,
): void {
  if (platform === 'win32') return;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pending = [dataDir];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    restrict(dir, 0o700);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      // Symbolic links are left alone: their target may be anything, anywhere.
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) restrict(full, 0o600);
    }
  }
}

/** Takes group and other access away (and exec from files); only touches what needs it. */
function restrict(file: string, mode: 0o700 | 0o600): void {
  try {
    const current = fs.lstatSync(file).mode & 0o777;
    if ((current & ~mode) !== 0) fs.chmodSync(file, current & mode);
  } catch {
    // Gone in between (a spool file that was just moved): nothing to protect.
  }
}

/** A file the process creates in the data folder: 0600 from the start on POSIX. */
export function makeFilePrivate(file: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === 'win32') return;
  restrict(file, 0o600);
}
