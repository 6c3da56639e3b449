import fs from 'node:fs';

/** The open flags of this process's descriptor for `file` (octal in /proc/self/fdinfo; Linux). */
export function openFlags(file: string): number {
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed since the listing
    }
    if (target !== file) continue;
    const flags = /flags:\s*([0-7]+)/.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
    return parseInt(flags![1]!, 8);
  }
  throw new Error(`${file} is not open`);
}

/** The files under `dir` with this ending that this process has open now. */
export function openFilesUnder(dir: string, ending: string): string[] {
  const open = new Set<string>();
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir) && target.endsWith(ending)) open.add(target);
    } catch {
      // closed since the listing
    }
  }
  return [...open];
}
