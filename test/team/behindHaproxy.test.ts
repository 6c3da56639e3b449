import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTally,
  generate as generateAt,
  pooled,
  seeded,
  setUpTeam,
  TEAM_FAULTS,
  type TeamSetup,
} from '../support/team';

// Three `atelier serve` processes behind Debian's HAProxy, each on its own SQLite file (the shared
// PostgreSQL is test/team/multiInstance.test.ts), one simulator for all. One instance is killed
// with SIGKILL in the middle of a burst: HAProxy sends new work to the others at once (a refused
// connection is tried on another server), and the killed instance, started again on its data
// folder, records each request it held.
let setup: TeamSetup;
let key: string;

beforeAll(async () => {
  setup = await setUpTeam({ postgresServer: null, name: 'killed' });
  // One key for all three: made in the first database, its row (a hash) copied to the others.
  key = (await setup.createKey({ name: 'burst', group: 'default' })).key;
}, 120_000);

afterAll(() => setup?.stop());

/** One generation through HAProxy; a transport failure is status 0 with its cause. */
const generate = (prompt: string) => generateAt(setup.team.balancer.url, key, prompt);

/** Which instances' usage logs hold the request. */
const recordedIn = async (requestId: string | null) => {
  const found = await Promise.all(
    setup.engines.map((engine) =>
      engine.get('SELECT 1 AS found FROM usage_records WHERE request_id = ?', [requestId]),
    ),
  );
  return found.flatMap((row, index) => (row ? [index] : []));
};

describe('three instances behind HAProxy', () => {
  it('300 requests with 20 % upstream faults: each recorded by one instance, billed = delivered, retries within budget', async () => {
    const random = seeded(21);
    let faults = 0;
    const prompts = Array.from({ length: 300 }, (_, i) => {
      const marker = `[spread ${i}]`;
      if (random() < 0.2) {
        faults += 1;
        const fault = TEAM_FAULTS[Math.floor(random() * TEAM_FAULTS.length)]!;
        setup.simulator.faults.add({ ...fault, match: { promptIncludes: marker } });
      }
      return `a lighthouse ${marker}`;
    });
    expect(faults).toBeGreaterThan(40);
    const tally = callTally(setup.simulator, /\[spread \d+\]/);
    const answers = await pooled(
      prompts.map((prompt) => async () => {
        const answer = await generate(prompt);
        tally.take();
        return answer;
      }),
      12,
    );
    tally.take();
    // Every answer came from a gateway (its request id), none from HAProxy alone.
    expect(answers.filter((a) => a.requestId === null)).toEqual([]);
    const rowOf = async (requestId: string) =>
      (
        await Promise.all(
          setup.engines.map((engine) =>
            engine.all<{ status: number; images: number }>(
              'SELECT status, images FROM usage_records WHERE request_id = ?',
              [requestId],
            ),
          ),
        )
      ).flat();
    for (const answer of answers) {
      await expect.poll(() => rowOf(answer.requestId!)).toHaveLength(1);
      const [row] = await rowOf(answer.requestId!);
      expect(row?.status).toBe(answer.status);
      if (answer.status === 200) expect(row?.images).toBe(answer.images);
    }
    // No request reached the upstream more often than its retry budget (n = 1, two retries).
    expect([...tally.calls.entries()].filter(([, calls]) => calls > 3)).toEqual([]);
    expect(tally.calls.size).toBe(300);
    // Round robin used all three.
    const served = await setup.team.balancer.served();
    expect([...served.values()].filter((count) => count >= 90)).toHaveLength(3);
  }, 180_000);

  it('one killed mid-burst: new work goes to the others at once, and it records what it held', async () => {
    const { simulator, team } = setup;
    const victim = team.instances[1]!;
    const markers = Array.from({ length: 9 }, (_, i) => `[killed ${i}]`);
    // Every burst request waits upstream, so the victim holds its share when it dies.
    for (const marker of markers) {
      simulator.faults.add({ kind: 'slow', delayMs: 3_000, match: { promptIncludes: marker } });
    }
    const burst = Promise.all(markers.map((marker) => generate(`a lighthouse ${marker}`)));
    await expect
      .poll(() => simulator.calls.filter((c) => markers.some((m) => c.prompt?.includes(m))).length)
      .toBe(markers.length);
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBeNull();

    // Before HAProxy's next check has seen it: the dead instance's refused connections are
    // retried on the others, so every new request is answered.
    const after = await Promise.all(
      Array.from({ length: 6 }, (_, i) => generate(`a kite [after ${i}]`)),
    );
    expect(after.filter((a) => a.status !== 200)).toEqual([]);
    await team.balancer.until((states) => states.get(`127.0.0.1:${victim.port}`) === 'DOWN');
    for (const answer of after) {
      await expect.poll(() => recordedIn(answer.requestId)).toHaveLength(1);
      expect(await recordedIn(answer.requestId)).not.toContain(1);
    }

    // The burst: the survivors' requests answered and recorded once; the victim's lost to their
    // clients, with no gateway request id: HAProxy answers 502 on a new connection, and closes a
    // kept-alive one (as the server did) so that its client may send again.
    const answers = await burst;
    const lost = answers.filter((a) => a.requestId === null);
    expect(lost.length).toBeGreaterThan(0);
    expect(
      lost.filter((a) => !(a.status === 502 || /other side closed/.test(a.error ?? ''))),
    ).toEqual([]);
    for (const answer of answers.filter((a) => a.requestId !== null)) {
      expect(answer.status).toBe(200);
      await expect.poll(() => recordedIn(answer.requestId)).toHaveLength(1);
    }

    // Started again where it was, the victim records each request it held as interrupted, and
    // HAProxy takes it back.
    const restarted = await setup.restart(1);
    expect(restarted.output()).toMatch(
      new RegExp(`recorded ${lost.length} request\\(s\\) interrupted`),
    );
    const interrupted = await setup.engines[1]!.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM usage_records WHERE error_code = 'gateway_interrupted' AND status = 500",
    );
    expect(interrupted?.n).toBe(lost.length);
    await team.balancer.until((states) => states.get(`127.0.0.1:${victim.port}`) === 'UP');
  });
});
