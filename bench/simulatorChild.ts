// The upstream for the benchmark, in its own process so that neither the client's timing nor the
// gateway's CPU share its event loop. Both simulators serve noise (incompressible) images with no
// artificial latency; the second has no native images channel, so subscription calls take the
// Responses bridge there.
import { startSimulator, type Simulator } from '../src/simulator';
import type { BenchTokens, SimulatorReady, ToSimulator } from './protocol';

const native = await startSimulator({ speed: 0, payload: 'noise' });
const bridge = await startSimulator({ speed: 0, payload: 'noise', nativeImages: false });

function login(sim: Simulator): BenchTokens {
  const tokens = sim.oauth.login({ email: 'bench@example.com', planType: 'pro' });
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    idToken: tokens.id_token,
    expiresAt: Date.now() + tokens.expires_in * 1000,
    accountId: tokens.account_id,
  };
}

// The call logs grow by one object per request; a long run does not need them.
const trim = setInterval(() => {
  native.calls.length = 0;
  bridge.calls.length = 0;
}, 5_000);
trim.unref();

process.on('message', (message: ToSimulator) => {
  if (message.type !== 'close') return;
  void Promise.all([native.close(), bridge.close()]).finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));

const ready: SimulatorReady = {
  type: 'ready',
  url: native.url,
  bridgeUrl: bridge.url,
  tokens: { native: login(native), bridge: login(bridge) },
};
process.send!(ready);
