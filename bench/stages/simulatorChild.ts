// The upstream of `npm run bench:stages`, in a process of its own so none of its CPU is counted
// as the gateway's.
import { startSimulator } from '../../src/simulator';
import type { StagesSimulatorReady } from './protocol';

const simulator = await startSimulator({ speed: 0 });
// The call log grows by one object per request; the benchmark never reads it.
const trim = setInterval(() => {
  simulator.calls.length = 0;
}, 5_000);
trim.unref();
process.on('disconnect', () => {
  void simulator.close().finally(() => process.exit(0));
});
const ready: StagesSimulatorReady = { type: 'ready', url: simulator.url };
process.send!(ready);
