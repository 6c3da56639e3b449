import { DEFAULT_ISSUER } from '../oauth/constants';
import type { AccountRecord } from '../core/domain';

/**
 * The issuers a sign-in may be opened at by the desktop shell: the provider's own, the one each
 * configured account signed in with, and the built-in simulator's (the offline issuer). A page in
 * the studio can name any issuer when it starts a sign-in through the admin API; the shell opens
 * the browser only at these, so a compromised page cannot use the app to open arbitrary sites.
 * Another issuer is added with `atelier accounts login --issuer URL`.
 */
export function signInIssuers(
  accounts: readonly Pick<AccountRecord, 'issuer'>[],
  simulatorUrl: string | null,
): string[] {
  const origins = new Set<string>();
  for (const issuer of [DEFAULT_ISSUER, simulatorUrl, ...accounts.map((a) => a.issuer)]) {
    if (!issuer) continue;
    try {
      origins.add(new URL(issuer).origin);
    } catch {
      // A malformed stored issuer is never opened.
    }
  }
  return [...origins];
}
