import type { Response } from 'express';
import { invalidParam } from '../../core/errors';
import type { ResponseJobs } from '../../responseJobs/jobs';
import { decodeEvent } from '../../bytes/sse';
import type { RequestScope } from '../requestScope';
import { openSse, type SseWriter } from './sse';

/** A job's events after `after`, as an event stream, until the job ends or the caller leaves. */
export function streamJob(jobs: ResponseJobs, id: string, after: number, res: Response): void {
  const sse = openSse(res);
  const stop = jobs.follow(id, after, (event) => {
    if (!event) {
      sse.end();
      return;
    }
    sse.event(event.type, [event.data]);
  });
  res.once('close', stop);
}

/** `starting_after` of a resumed stream: a sequence number, or -1 (from the start) when absent. */
export function startingAfter(value: unknown): number {
  if (value === undefined) return -1;
  const after = typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(after) || after < -1) {
    throw invalidParam(
      'starting_after',
      'starting_after must be a sequence number (an integer >= 0)',
    );
  }
  return after;
}

/**
 * An event stream written into a job instead of onto a connection: each event is numbered and
 * kept by the job (responseJobs/), and whoever follows the job reads it from there.
 */
export function jobSse(jobs: ResponseJobs, id: string, scope: RequestScope): SseWriter {
  let ended = false;
  // While an event is being streamed in, the others wait for it (as on a connection).
  let streaming: Buffer[] | null = null;
  const waiting: Array<() => void> = [];
  const text = (pieces: ReadonlyArray<string | Buffer>) =>
    Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString('utf8');
  const writer: SseWriter = {
    get open() {
      return !ended;
    },
    event(_name, pieces) {
      if (streaming) {
        waiting.push(() => writer.event(_name, pieces));
        return;
      }
      if (!ended) jobs.event(id, text(pieces));
    },
    begin(_name, head) {
      if (streaming) throw new Error('an event is already being streamed');
      const parts: Buffer[] = [Buffer.from(head)];
      streaming = parts;
      return {
        write: (piece) => void parts.push(piece),
        end: (rest) => {
          streaming = null;
          if (!ended) jobs.event(id, text([...parts, rest]));
          for (const write of waiting.splice(0)) write();
        },
      };
    },
    raw(pieces) {
      // A whole upstream event block: its data is the event.
      const block = decodeEvent([...pieces]);
      if (block && !ended) jobs.event(id, block.data.toString('utf8'));
    },
    error(error) {
      scope.answered(error);
      if (!ended) jobs.event(id, JSON.stringify({ type: 'error', ...error.toBody() }));
    },
    end() {
      if (ended) return;
      ended = true;
      jobs.end(id);
    },
  };
  return writer;
}
