import type { ImageUpstream } from '../upstream/types';

/**
 * The accounts a request may be sent to. Today one account answers everything (a configured
 * upstream, or the built-in simulator); choosing by tier, load and size is the dispatch issue's.
 */
export interface UpstreamPool {
  /** The account for the next call. */
  pick(): ImageUpstream;
  /** What the studio shows: which upstream serves this gateway. */
  describe(): { kind: 'simulator' | 'accounts'; label: string };
}

export function singleUpstreamPool(upstream: ImageUpstream): UpstreamPool {
  return {
    pick: () => upstream,
    describe: () =>
      upstream.account.kind === 'simulator'
        ? { kind: 'simulator', label: 'Offline simulator' }
        : { kind: 'accounts', label: upstream.account.name },
  };
}
