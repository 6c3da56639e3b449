import { TERMINAL, type JobEvent, type JobsRepository } from './repository';

/**
 * Follows a job this gateway is not running: its events after `after` from the table. While its
 * row says it is unfinished (another instance of a team gateway runs it), the table is read again
 * every `pollMs` until the job ends or its time is up. The status is read before the events: the
 * instance running a job writes its events before its end, so an end seen means every event is
 * there to read. Returns the stop.
 */
export function followStored(
  repo: Pick<JobsRepository, 'get' | 'eventsAfter'>,
  id: string,
  after: number,
  onEvent: (event: JobEvent | null) => void,
  opts: { pollMs: number; now: () => number; log: (line: string) => void },
): () => void {
  let last = after;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const end = () => {
    if (stopped) return;
    stopped = true;
    onEvent(null);
  };
  const fail = (error: unknown) => {
    opts.log(`job ${id}: its events could not be read (${String(error)})`);
    end();
  };
  const step = async () => {
    const row = await repo.get(id);
    const events = await repo.eventsAfter(id, last);
    for (const event of events) {
      if (stopped) return;
      last = event.sequenceNumber;
      onEvent({ ...event, type: typeOf(event.data) });
    }
    if (!row || TERMINAL.has(row.status) || row.expiresAt <= opts.now()) end();
    else if (!stopped) timer = setTimeout(() => void step().catch(fail), opts.pollMs);
  };
  void step().catch(fail);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

export function typeOf(data: string): string {
  try {
    return String((JSON.parse(data) as Record<string, unknown>).type ?? '');
  } catch {
    return '';
  }
}
