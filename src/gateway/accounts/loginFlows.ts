import { randomBytes } from 'node:crypto';
import { DEFAULT_CLIENT_ID } from '../oauth/constants';
import { startLoopbackLogin } from '../oauth/loopbackLogin';
import { saveSubscriptionLogin, type AccountsContext, type SubscriptionOptions } from './service';
import type { AccountRecord } from '../core/domain';

export type LoginFlowState =
  | { state: 'waiting' }
  | { state: 'done'; account: AccountRecord }
  | { state: 'failed'; error: string };

/**
 * OAuth sign-ins started from the studio: the gateway runs the loopback callback (as
 * `atelier accounts login` does) and the studio opens the authorize URL and polls the outcome.
 */
export interface LoginFlows {
  start(opts: SubscriptionOptions): Promise<{ loginId: string; authorizeUrl: string }>;
  get(loginId: string): LoginFlowState | null;
  /**
   * The authorize URL of a sign-in still waiting for the browser, else null. The desktop shell
   * opens only URLs it gets here, so a page cannot make it open an address of its choosing.
   */
  authorizeUrl(loginId: string): string | null;
  /** Stops every sign-in still waiting (the gateway is closing) and frees their ports. */
  cancelAll(): void;
}

/** How long a finished sign-in's outcome can still be read. */
const KEEP_OUTCOME_MS = 10 * 60_000;

export function createLoginFlows(deps: {
  ctx: AccountsContext;
  /** The loopback callback port: 1455 by default (the public client's registration); 0 in tests. */
  callbackPort?: number;
  now: () => number;
  log: (line: string) => void;
}): LoginFlows {
  const flows = new Map<
    string,
    { state: LoginFlowState; endedAt: number | null; authorizeUrl: string }
  >();
  const cancels = new Map<string, () => void>();
  const prune = () => {
    for (const [id, flow] of flows) {
      if (flow.endedAt !== null && deps.now() - flow.endedAt > KEEP_OUTCOME_MS) flows.delete(id);
    }
  };

  return {
    async start(opts) {
      prune();
      // Open the secret store first: better to fail before the user signs in than after.
      await deps.ctx.secrets();
      const session = await startLoopbackLogin({
        issuer: opts.issuer,
        clientId: DEFAULT_CLIENT_ID,
        port: deps.callbackPort,
      });
      const loginId = `login_${randomBytes(12).toString('hex')}`;
      const flow = {
        state: { state: 'waiting' } as LoginFlowState,
        endedAt: null as number | null,
        authorizeUrl: session.authorizeUrl,
      };
      flows.set(loginId, flow);
      cancels.set(loginId, session.cancel);
      const end = (state: LoginFlowState) => {
        flow.state = state;
        flow.endedAt = deps.now();
        cancels.delete(loginId);
      };
      void session.result
        .then((result) => saveSubscriptionLogin(deps.ctx, result, opts))
        .then(
          ({ record, again }) => {
            deps.log(`${again ? 'signed in again to' : 'added'} subscription account ${record.id}`);
            end({ state: 'done', account: record });
          },
          (error: unknown) =>
            end({ state: 'failed', error: error instanceof Error ? error.message : String(error) }),
        );
      return { loginId, authorizeUrl: session.authorizeUrl };
    },
    get: (loginId) => flows.get(loginId)?.state ?? null,
    authorizeUrl(loginId) {
      const flow = flows.get(loginId);
      return flow?.state.state === 'waiting' ? flow.authorizeUrl : null;
    },
    cancelAll() {
      for (const cancel of cancels.values()) cancel();
    },
  };
}
