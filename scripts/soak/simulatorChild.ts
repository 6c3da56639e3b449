// The soak's upstream, in a process of its own so the gateway's memory is the gateway's alone.
import { startSimulator } from '../../src/simulator';

const speed = Number(process.argv[2] ?? '0.05');
const simulator = await startSimulator({ speed });

/** Upstream calls per soak request, by the `[soak N]` marker in its prompt. */
const callsByMarker = new Map<string, number>();
const MARKER = /\[soak -?\d+\]/;

// The call log keeps its last 500 calls; a long run tallies what it needs and empties it often
// (on this thread, so no call is missed between the tally and the clearing).
const tally = () => {
  for (const call of simulator.calls.splice(0)) {
    const marker = MARKER.exec(call.prompt ?? '')?.[0];
    if (marker) callsByMarker.set(marker, (callsByMarker.get(marker) ?? 0) + 1);
  }
};
const trim = setInterval(tally, 250);
trim.unref();

process.on('message', (message: { type: string }) => {
  if (message.type === 'calls') {
    tally();
    process.send!({ type: 'calls', calls: Object.fromEntries(callsByMarker) });
  } else if (message.type === 'close') void simulator.close().finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
// The control credential goes to the parent, which scripts faults with it (src/simulator/guard.ts).
process.send!({ type: 'ready', url: simulator.url, controlToken: simulator.controlToken });
