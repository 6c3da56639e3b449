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
  log: (line: string) => void,
): void {
  events.on('settled', (requestId, cost, recorded) => {
    // The row now holds what the request's limits reservation held (or it is lost anyway).
    limiter.charge(requestId, recorded ? cost : null, now()).then(
      (alerts) => {
        for (const alert of alerts) events.emit('budget', alert);
      },
      (error: Error) =>
        log(`request ${requestId}: its limits reservation was not released: ${error.message}`),
    );
  });
}
