// The soak's upstream, in a process of its own so the gateway's memory is the gateway's alone.
import { startSimulator } from '../../src/simulator';

const speed = Number(process.argv[2] ?? '0.05');
const simulator = await startSimulator({ speed });

// The call log grows by one entry per call; a long run needs none of it.
const trim = setInterval(() => {
  simulator.calls.length = 0;
}, 2_000);
trim.unref();

process.on('message', (message: { type: string }) => {
  if (message.type === 'close') void simulator.close().finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
// The control credential goes to the parent, which scripts faults with it (src/simulator/guard.ts).
process.send!({ type: 'ready', url: simulator.url, controlToken: simulator.controlToken });
