import '../zodConfig';
import type { z } from 'zod';
import {
  imageRecordSchema,
  usageRecordSchema,
  type ImageRecord,
  type UsageRecord,
} from '../../../shared/admin';
import { adminUrls } from './admin';
import { doubtSession } from './session';

export interface AdminEventHandlers {
  onUsage?: (record: UsageRecord) => void;
  onImage?: (image: ImageRecord) => void;
  /** true once the stream is live (again); false while the browser reconnects. */
  onConnection?: (live: boolean) => void;
}

/**
 * Subscribes to GET /api/admin/events (the live request log and new gallery images). The
 * browser reconnects by itself after a drop. Returns the unsubscribe function.
 */
export function subscribeAdminEvents(handlers: AdminEventHandlers): () => void {
  const source = new EventSource(adminUrls.events);
  const read = <S extends z.ZodType>(schema: S, data: string): z.output<S> | null => {
    try {
      const parsed = schema.safeParse(JSON.parse(data));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };
  source.addEventListener('open', () => handlers.onConnection?.(true));
  source.addEventListener('error', () => {
    handlers.onConnection?.(false);
    // An EventSource never tells the status: a refused reconnect (401) looks like any drop.
    doubtSession();
  });
  source.addEventListener('usage', (event) => {
    const record = read(usageRecordSchema, (event as MessageEvent<string>).data);
    if (record) handlers.onUsage?.(record);
  });
  source.addEventListener('image', (event) => {
    const image = read(imageRecordSchema, (event as MessageEvent<string>).data);
    if (image) handlers.onImage?.(image);
  });
  return () => source.close();
}
