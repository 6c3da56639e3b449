import { accountStatus } from '../accounts/status';
import type { AccountRecord } from '../core/domain';

export interface ServingInput {
  /** The accounts dispatch will use, as the pool sees them (the implicit one when none is stored). */
  accounts: readonly AccountRecord[];
  /** The built-in simulator's address, when it runs. */
  simulatorUrl: string | null;
  now: number;
}

/**
 * The start-up lines that say where images go: every account that will serve, by group, with its
 * kind, tier and state; the simulator only when it really is an upstream (the implicit account
 * while none is configured, or the backend of simulator accounts).
 */
export function servingLines({ accounts, simulatorUrl, now }: ServingInput): string[] {
  const implicit = accounts.length === 1 && accounts[0]!.groupName === '*' ? accounts[0]! : null;
  if (implicit) {
    return implicit.kind === 'simulator'
      ? [
          `  upstream: Offline simulator (built-in, no upstream account configured) at ${simulatorUrl ?? '?'}`,
        ]
      : [`  upstream: ${implicit.baseUrl} (--upstream-url, no upstream account configured)`];
  }
  const ready = accounts.filter((a) => accountStatus(a, now).state === 'ready').length;
  const groups = [...new Set(accounts.map((a) => a.groupName))].sort();
  const lines = [
    `  upstream: ${accounts.length} account${accounts.length === 1 ? '' : 's'} (${ready} ready) in ${groups.length} group${groups.length === 1 ? '' : 's'}`,
  ];
  if (accounts.length === 0) {
    lines.push('    no account: requests fail until one is added (atelier accounts add-key ...)');
  }
  for (const group of groups) {
    lines.push(`    group ${group}:`);
    for (const a of accounts.filter((x) => x.groupName === group)) {
      const status = accountStatus(a, now);
      const state = status.state === 'ready' ? 'ready' : `${status.state}: ${status.detail}`;
      const where = a.kind === 'simulator' ? 'built-in simulator' : a.baseUrl;
      lines.push(`      ${a.name}  ${a.kind}, tier ${a.tier}, ${where}  ${state}`);
    }
  }
  if (simulatorUrl && accounts.some((a) => a.kind === 'simulator')) {
    lines.push(`    simulator accounts are served by the built-in simulator at ${simulatorUrl}`);
  }
  return lines;
}
