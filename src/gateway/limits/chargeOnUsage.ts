import type { GatewayEvents } from '../core/events';
import type { KeyLimiter } from './limiter';

/**
 * Charges each request's limits reservation when its usage record is written (with the real
 * cost) or lost (releasing it), and announces the budget alerts that crossing brings.
 */
export function chargeLimitsOnUsage(
  events: GatewayEvents,
  limiter: Pick<KeyLimiter, 'charge'>,
  now: () => number,
): void {
  events.on('settled', (requestId, cost, recorded) => {
    // The row now holds what the request's limits reservation held (or it is lost anyway).
    for (const alert of limiter.charge(requestId, recorded ? cost : null, now()))
      events.emit('budget', alert);
  });
}
