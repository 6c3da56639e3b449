import type { EventEmitter } from 'node:events';

/** What the gateway announces: the live request log and the gallery follow these. */
export interface GatewayEventMap {
  /** A request's usage record was written. */
  usage: [requestId: string];
  /** A kept image (and its thumbnail) is on disk and in the gallery. */
  image: [imageId: string, requestId: string];
}

export type GatewayEvents = EventEmitter<GatewayEventMap>;
