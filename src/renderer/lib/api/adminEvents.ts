import '../zodConfig';
import type { z } from 'zod';
import {
  budgetAlertSchema,
  imageRecordSchema,
  usageRecordSchema,
  type BudgetAlert,
  type ImageRecord,
  type UsageRecord,
} from '../../../shared/admin';
import { adminUrls } from './urls';
import { doubtSession } from './session';

export interface AdminEventHandlers {
  onUsage?: (record: UsageRecord) => void;
  onImage?: (image: ImageRecord) => void;
  /** A key (the Studio key included) passed 50, 80 or 100 % of its budget. */
  onBudget?: (alert: BudgetAlert) => void;
  /** true once the stream is live (again); false while the browser reconnects. */
  onConnection?: (live: boolean) => void;
}

/** Subscribes `handlers`; returns the unsubscribe function. */
export type SubscribeAdminEvents = (handlers: AdminEventHandlers) => () => void;

/** What the studio uses of an EventSource (tests hand in their own). */
export interface EventSourceLike {
  addEventListener(type: string, listener: (event: Event) => void): void;
  close(): void;
}

/**
 * GET /api/admin/events (the live request log, new gallery images, budget alerts) for every subscriber over
 * one EventSource: a browser opens at most six HTTP/1.1 connections to a host, and pages and
 * gallery lookups each holding one would leave fetches waiting. The source opens with the first
 * subscriber and closes with the last; the browser reconnects it by itself after a drop.
 */
export function createAdminEvents(
  open: (url: string) => EventSourceLike = (url) => new EventSource(url),
): SubscribeAdminEvents {
  const subscribers = new Set<AdminEventHandlers>();
  let source: EventSourceLike | null = null;
  let live = false;
  const each = (call: (handlers: AdminEventHandlers) => void) => {
    for (const handlers of [...subscribers]) call(handlers);
  };
  const read = <S extends z.ZodType>(schema: S, event: Event): z.output<S> | null => {
    try {
      const parsed = schema.safeParse(JSON.parse((event as MessageEvent<string>).data));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };

  function start(): EventSourceLike {
    const opened = open(adminUrls.events);
    opened.addEventListener('open', () => {
      live = true;
      each((handlers) => handlers.onConnection?.(true));
    });
    opened.addEventListener('error', () => {
      live = false;
      each((handlers) => handlers.onConnection?.(false));
      // An EventSource never tells the status: a refused reconnect (401) looks like any drop.
      doubtSession();
    });
    opened.addEventListener('usage', (event) => {
      const record = read(usageRecordSchema, event);
      if (record) each((handlers) => handlers.onUsage?.(record));
    });
    opened.addEventListener('image', (event) => {
      const image = read(imageRecordSchema, event);
      if (image) each((handlers) => handlers.onImage?.(image));
    });
    opened.addEventListener('budget', (event) => {
      const alert = read(budgetAlertSchema, event);
      if (alert) each((handlers) => handlers.onBudget?.(alert));
    });
    return opened;
  }

  return (handlers) => {
    subscribers.add(handlers);
    source ??= start();
    // A late subscriber hears that the stream is live, as the first did; never before this
    // function has returned its unsubscribe.
    if (live)
      queueMicrotask(() => live && subscribers.has(handlers) && handlers.onConnection?.(true));
    return () => {
      if (!subscribers.delete(handlers) || subscribers.size > 0) return;
      source?.close();
      source = null;
      live = false;
    };
  };
}

/** The studio's subscription to the admin events stream. */
export const subscribeAdminEvents: SubscribeAdminEvents = createAdminEvents();
