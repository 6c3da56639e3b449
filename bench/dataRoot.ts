import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { resolveDataDir } from '../src/gateway/core/dataDir';

/*
 * Where the benchmark's gateways keep their data: beside the folder an installed gateway uses
 * (`~/.config/atelier-bench/` next to `~/.config/Atelier/`), not in the system's temporary folder.
 *
 * The gallery creates a file per kept image, and what a file's creation costs depends on where it
 * is made. On ext4 without a journal (these VMs) a new inode skips every free inode of its group
 * that was deleted in the last 12 hours (`vm.dirtytime_expire_seconds`) while its inode table is
 * cached, reading each one. `/tmp` is where the test suites make and delete thousands of folders,
 * so there a create was measured at 0.95 ms against 0.02-0.06 ms under the home folder: a cost of
 * the machine's history that no installed gateway pays, and one the floor (which writes nothing)
 * does not pay either.
 */

/** The folder the benchmark's data folders are made in (created if missing). */
export function benchDataRoot(): string {
  const root = path.join(path.dirname(resolveDataDir()), 'atelier-bench');
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  return root;
}

/** A fresh data folder for one gateway, under `benchDataRoot()`. */
export function freshBenchDir(prefix: string): string {
  return fs.mkdtempSync(path.join(benchDataRoot(), prefix));
}

const PROBE_FILES = 100;

/**
 * Milliseconds to create (and close) one empty file in a fresh folder under `parent`, the median
 * of PROBE_FILES: the machine's state the gallery's figures depend on, reported beside them.
 */
export function fileCreateMs(parent: string): number {
  const dir = fs.mkdtempSync(path.join(parent, 'atelier-create-probe-'));
  try {
    const times: number[] = [];
    for (let i = 0; i < PROBE_FILES; i += 1) {
      const started = performance.now();
      fs.closeSync(fs.openSync(path.join(dir, String(i)), 'wx'));
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The probe in the benchmark's data root and in the system's temporary folder. */
export function fileCreateCosts(): { benchDataMs: number; tmpMs: number } {
  return { benchDataMs: fileCreateMs(benchDataRoot()), tmpMs: fileCreateMs(os.tmpdir()) };
}
