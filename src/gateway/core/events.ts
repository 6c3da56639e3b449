import type { EventEmitter } from 'node:events';
import type { BudgetAlert } from '../../shared/admin';

/** What the gateway announces: the live request log and the gallery follow these. */
export interface GatewayEventMap {
  /** A request's usage record was written. */
  usage: [requestId: string];
  /**
   * A request is over and its usage record written (or lost): what it cost. The key's limits
   * charge their reservation and the gallery writes the images it held for the request once they
   * hear this.
   */
  settled: [requestId: string, costMicros: number, recorded: boolean];
  /** A kept image (and its thumbnail) is on disk and in the gallery. */
  image: [imageId: string, requestId: string];
  /** A key's spend passed 50, 80 or 100 % of its budget in the period (limits/budgetAlerts.ts). */
  budget: [alert: BudgetAlert];
}

export type GatewayEvents = EventEmitter<GatewayEventMap>;
