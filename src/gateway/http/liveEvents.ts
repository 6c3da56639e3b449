import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { budgetAlertSchema, type BudgetAlert } from '../../shared/admin';
import type { GatewayEventMap, GatewayEvents } from '../core/events';
import type { SqlEngine } from '../storage/engine';

/** What the studio's event stream shows: the request log, new images, budget notices. */
export type LiveEventMap = Pick<GatewayEventMap, 'usage' | 'image' | 'budget'>;
export type LiveEvents = EventEmitter<LiveEventMap>;

/**
 * One notice as it crosses the database: who sent it and what happened, by id. Records are never
 * sent (a usage record holds a prompt of up to 32,000 characters; PostgreSQL refuses a NOTIFY of
 * 8,000 bytes): the instance that hears a notice reads the row from the shared database, as it
 * reads its own.
 */
export type LiveNotice =
  | { from: string; event: 'usage'; requestId: string }
  | { from: string; event: 'image'; imageId: string; requestId: string }
  | { from: string; event: 'budget'; alert: BudgetAlert };

export function encodeLiveNotice(notice: LiveNotice): string {
  return JSON.stringify(notice);
}

/** The notice in `text`, or null when it is not one (another build's, or damaged). */
export function parseLiveNotice(text: string): LiveNotice | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const field = (name: string): unknown =>
    Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
  const nonEmpty = (name: string): string | null => {
    const found = field(name);
    return typeof found === 'string' && found.length > 0 ? found : null;
  };
  const from = nonEmpty('from');
  if (!from) return null;
  switch (field('event')) {
    case 'usage': {
      const requestId = nonEmpty('requestId');
      return requestId ? { from, event: 'usage', requestId } : null;
    }
    case 'image': {
      const imageId = nonEmpty('imageId');
      const requestId = nonEmpty('requestId');
      return imageId && requestId ? { from, event: 'image', imageId, requestId } : null;
    }
    case 'budget': {
      const alert = budgetAlertSchema.safeParse(field('alert'));
      return alert.success ? { from, event: 'budget', alert: alert.data } : null;
    }
    default:
      return null;
  }
}

export interface LiveEventsRelay {
  /** This instance's events and, on PostgreSQL, every other instance's. */
  live: LiveEvents;
  /** This instance's name in the notices it sends. */
  instanceId: string;
  close(): void;
}

/**
 * The studio's live events across instances (issue 21 item 3): each `usage`, `image` and
 * `budget` event of this gateway is passed to `live` at once and broadcast through the database
 * (PostgreSQL NOTIFY, storage/engine.ts); each notice another instance broadcast is passed to
 * `live` when heard, so a studio served by one instance shows a request another one served. On
 * SQLite nothing is broadcast (one gateway per file).
 *
 * A notice that cannot be sent (the database is down) is logged and lost: the usage page still
 * shows the request on its next read; the stream is a view, never the record. Notices sent while
 * an instance's listening connection is down are missed the same way (it listens again a second
 * later, storage/postgresEngine.ts).
 */
export function relayLiveEvents(deps: {
  events: GatewayEvents;
  engine: Pick<SqlEngine, 'broadcast' | 'onBroadcast'>;
  log: (line: string) => void;
  instanceId?: string;
}): LiveEventsRelay {
  const instanceId = deps.instanceId ?? randomUUID();
  const live: LiveEvents = new EventEmitter<LiveEventMap>();
  // Every open studio tab listens: no warning at the eleventh.
  live.setMaxListeners(0);
  let failures = 0;
  const send = (notice: LiveNotice) => {
    deps.engine.broadcast(encodeLiveNotice(notice)).then(
      () => (failures = 0),
      (error: Error) => {
        // One line per outage, not one per request.
        if (failures++ === 0)
          deps.log(`live events not shared with other instances: ${error.message}`);
      },
    );
  };
  const onUsage = (requestId: string) => {
    live.emit('usage', requestId);
    send({ from: instanceId, event: 'usage', requestId });
  };
  const onImage = (imageId: string, requestId: string) => {
    live.emit('image', imageId, requestId);
    send({ from: instanceId, event: 'image', imageId, requestId });
  };
  // Each instance decides a threshold from the shared usage log, so two instances charging the
  // same key at the same moment can both announce it: the stream shows each threshold once per
  // period (the latest period per key, budget and threshold: a few entries per key). A budget
  // changed within the period has thresholds of its own, announced again.
  const announced = new Map<string, number>();
  const firstOfPeriod = (alert: BudgetAlert) => {
    const which = `${alert.apiKeyId}\0${alert.period}\0${alert.budgetMicros}\0${alert.percent}`;
    const seen = announced.get(which);
    if (seen !== undefined && seen >= alert.periodStart) return false;
    announced.set(which, alert.periodStart);
    return true;
  };
  const onBudget = (alert: BudgetAlert) => {
    if (!firstOfPeriod(alert)) return;
    live.emit('budget', alert);
    send({ from: instanceId, event: 'budget', alert });
  };
  deps.events.on('usage', onUsage);
  deps.events.on('image', onImage);
  deps.events.on('budget', onBudget);
  const stopHearing = deps.engine.onBroadcast((payload) => {
    const notice = parseLiveNotice(payload);
    // Its own notices come back too: those were passed on when they happened.
    if (!notice || notice.from === instanceId) return;
    if (notice.event === 'usage') live.emit('usage', notice.requestId);
    else if (notice.event === 'image') live.emit('image', notice.imageId, notice.requestId);
    else if (firstOfPeriod(notice.alert)) live.emit('budget', notice.alert);
  });
  return {
    live,
    instanceId,
    close() {
      stopHearing();
      deps.events.off('usage', onUsage);
      deps.events.off('image', onImage);
      deps.events.off('budget', onBudget);
    },
  };
}
