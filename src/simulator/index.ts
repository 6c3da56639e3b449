import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loopbackHosts } from './guard';
import { FaultScriptImpl } from './faults';
import { OAuthStore } from './oauthStore';
import { createSimServer } from './server';
import type { SimState } from './context';
import type { ResolvedOptions, Simulator, SimulatorOptions } from './types';

export type {
  Fault,
  FaultKind,
  FaultMatch,
  FaultScript,
  OAuthControl,
  OAuthTokens,
  SimCall,
  SimCallKind,
  Simulator,
  SimulatorOptions,
} from './types';
export { AUTH_CLAIMS, decodeJwt } from './jwt';
export { CONTROL_HEADER } from './guard';

const DEFAULTS: ResolvedOptions = {
  host: '127.0.0.1',
  port: 0,
  speed: 1,
  payload: 'art',
  nativeImages: true,
  planType: 'pro',
  accessTokenTtlSeconds: 3600,
};

const DEFAULT_SCOPE = 'openid profile email offline_access';

/** Starts the built-in offline upstream on loopback. Close it with `close()`. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const given = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  );
  const { controlToken = randomBytes(32).toString('base64url'), ...rest } =
    given as SimulatorOptions;
  const opts: ResolvedOptions = { ...DEFAULTS, ...rest };
  const state: SimState = {
    opts,
    faults: new FaultScriptImpl(),
    calls: [],
    oauth: new OAuthStore(opts.planType, opts.accessTokenTtlSeconds),
    revoked: new Set<string>(),
    url: '',
    hosts: new Set<string>(),
    controlToken,
    lastEdit: null,
    atOnce: new Map(),
  };
  const closing = new AbortController();
  const server = createSimServer(state, closing.signal);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  state.url = `http://${host}:${port}`;
  state.hosts = loopbackHosts(opts.host, port);
  return {
    url: state.url,
    port,
    faults: state.faults,
    calls: state.calls,
    controlToken,
    revoke: (token) => state.revoked.add(token),
    atOnce: (accountId) => ({ now: 0, most: 0, ...state.atOnce.get(accountId) }),
    oauth: {
      setRefreshTokenState: (token, refreshState) =>
        state.oauth.setRefreshState(token, refreshState),
      login: ({ email, planType, clientId = 'app_simulator', scope = DEFAULT_SCOPE } = {}) => {
        const account = state.oauth.account(email, planType);
        const tokens = state.oauth.issueTokens(account, clientId, scope, state.url);
        return { ...tokens, account_id: account.accountId };
      },
    },
    close: async () => {
      // Abort first so in-flight renders and timers stop instead of holding sockets open.
      closing.abort(new Error('simulator closed'));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
