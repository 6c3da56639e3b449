/**
 * Who owns a row that stands for work in progress (a pending usage row, a background job): the
 * gateway process and the run of it that wrote it. What a stopped run left is taken over by the
 * next start or another instance; a live run's rows never are.
 */
export interface RunOwner {
  pid: number;
  /** Random per run (a gateway started twice in one process has two). */
  run: string;
}

/** Runs of this process that are still open: their rows are work under way. */
const openRuns = new Set<string>();

/** Marks a run of this process as open; the returned function closes it. */
export function openRun(owner: RunOwner): () => void {
  openRuns.add(owner.run);
  return () => openRuns.delete(owner.run);
}

export function isOpenRun(run: string): boolean {
  return openRuns.has(run);
}

/**
 * Whether a process id is alive on this machine. Used on SQLite only, whose writers are all
 * processes of one machine; on PostgreSQL a row's lease says whether its run lives.
 */
export function processAlive(pid: number): boolean {
  // 0 is a row written before rows had owners (and would signal our own process group).
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
