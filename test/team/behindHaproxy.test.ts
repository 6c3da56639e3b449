import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/gateway/core/dataDir';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { openDatabase, type Db } from '../../src/gateway/storage/db';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { startSimulator, type Simulator } from '../../src/simulator';
import { startInstance, startTeam, type Team } from '../support/team';

// Three `atelier serve` processes behind Debian's HAProxy, each on its own SQLite file (the shared
// PostgreSQL is test/team/multiInstance.test.ts, waiting for `serve --database`), one simulator
// for all. One instance is killed with SIGKILL in the middle of a burst: HAProxy sends new work
// to the others at once (a refused connection is tried on another server), and the killed
// instance, started again on its data folder, records each request it held.
let simulator: Simulator;
let team: Team;
let root: string;
let key: string;
const dbs: Db[] = [];

beforeAll(async () => {
  simulator = await startSimulator({ speed: 0 });
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-killed-'));
  team = await startTeam({
    databaseUrl: null,
    instances: 3,
    root,
    serveArgs: ['--upstream-url', `${simulator.url}/v1`],
    env: { ATELIER_UPSTREAM_API_KEY: 'sk-team-upstream' },
  });
  for (const instance of team.instances) dbs.push(openDatabase(databasePath(instance.dataDir)));
  // One key for all three: made in the first database, its row (a hash) copied to the others.
  const created = await createKeysRepository(sqliteEngine(dbs[0]!)).create({
    name: 'burst',
    group: 'default',
  });
  key = created.key;
  const row = dbs[0]!.prepare('SELECT * FROM api_keys WHERE id = ?').get(created.record.id) as
    Record<string, unknown> | undefined;
  const columns = Object.keys(row ?? {});
  for (const db of dbs.slice(1)) {
    db.prepare(
      `INSERT INTO api_keys (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    ).run(...Object.values(row ?? {}));
  }
}, 120_000);

afterAll(async () => {
  for (const db of dbs) db.close();
  await team?.stop();
  await simulator?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** One generation through HAProxy; a transport failure is status 0 with its cause. */
async function generate(prompt: string) {
  try {
    const res = await fetch(`${team.balancer.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-model-2', prompt, quality: 'low' }),
    });
    await res.arrayBuffer();
    return { status: res.status, requestId: res.headers.get('x-request-id'), error: null };
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? String(error);
    return { status: 0, requestId: null, error: `${prompt}: ${cause}` };
  }
}

/** Which instances' usage logs hold the request. */
const recordedIn = (requestId: string | null) =>
  dbs.flatMap((db, index) =>
    db.prepare('SELECT 1 FROM usage_records WHERE request_id = ?').get(requestId) ? [index] : [],
  );

/** Seeded, so a failure replays. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const FAULTS = [
  { kind: 'http_error', status: 500 },
  { kind: 'http_error', status: 503 },
  { kind: 'reset' },
  { kind: 'no_usage' },
  { kind: 'no_image' },
  { kind: 'refusal' },
  { kind: 'downgrade' },
  { kind: 'slow', delayMs: 200 },
] as const;

/** At most `limit` of `jobs` at once. */
async function pooled<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe('three instances behind HAProxy', () => {
  it('300 requests with 20 % upstream faults: each recorded by one instance, billed = delivered, retries within budget', async () => {
    const random = seeded(21);
    let faults = 0;
    const prompts = Array.from({ length: 300 }, (_, i) => {
      const marker = `[spread ${i}]`;
      if (random() < 0.2) {
        faults += 1;
        const fault = FAULTS[Math.floor(random() * FAULTS.length)]!;
        simulator.faults.add({ ...fault, match: { promptIncludes: marker } });
      }
      return `a lighthouse ${marker}`;
    });
    expect(faults).toBeGreaterThan(40);
    const callsByMarker = new Map<string, number>();
    const tally = () => {
      // The simulator keeps its last 500 calls: tallied after every answer.
      for (const call of simulator.calls.splice(0)) {
        const marker = /\[spread \d+\]/.exec(call.prompt ?? '')?.[0];
        if (marker) callsByMarker.set(marker, (callsByMarker.get(marker) ?? 0) + 1);
      }
    };
    const answers = await pooled(
      prompts.map((prompt) => async () => {
        const res = await fetch(`${team.balancer.url}/v1/images/generations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'image-model-2', prompt, quality: 'low' }),
        });
        const body = (await res.json()) as { data?: unknown[] };
        tally();
        return {
          status: res.status,
          requestId: res.headers.get('x-request-id'),
          images: res.status === 200 ? (body.data?.length ?? 0) : 0,
        };
      }),
      12,
    );
    tally();
    // Every answer came from a gateway (its request id), none from HAProxy alone.
    expect(answers.filter((a) => a.requestId === null)).toEqual([]);
    const rowOf = (requestId: string) =>
      dbs.flatMap((db, index) =>
        (
          db
            .prepare('SELECT status, images FROM usage_records WHERE request_id = ?')
            .all(requestId) as Array<{ status: number; images: number }>
        ).map((row) => ({ ...row, index })),
      );
    for (const answer of answers) {
      await expect.poll(() => rowOf(answer.requestId!)).toHaveLength(1);
      const [row] = rowOf(answer.requestId!);
      expect(row?.status).toBe(answer.status);
      if (answer.status === 200) expect(row?.images).toBe(answer.images);
    }
    // No request reached the upstream more often than its retry budget (n = 1, two retries).
    expect([...callsByMarker.entries()].filter(([, calls]) => calls > 3)).toEqual([]);
    expect(callsByMarker.size).toBe(300);
    // Round robin used all three.
    const served = await team.balancer.served();
    expect([...served.values()].filter((count) => count >= 90)).toHaveLength(3);
  }, 180_000);

  it('one killed mid-burst: new work goes to the others at once, and it records what it held', async () => {
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
      expect(recordedIn(answer.requestId)).not.toContain(1);
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
    const restarted = await startInstance(1, {
      databaseUrl: null,
      root,
      port: victim.port,
      serveArgs: ['--upstream-url', `${simulator.url}/v1`],
      env: { ATELIER_UPSTREAM_API_KEY: 'sk-team-upstream' },
    });
    team.instances[1] = restarted;
    expect(restarted.output()).toMatch(
      new RegExp(`recorded ${lost.length} request\\(s\\) interrupted`),
    );
    const interrupted = dbs[1]!
      .prepare(
        "SELECT COUNT(*) AS n FROM usage_records WHERE error_code = 'gateway_interrupted' AND status = 500",
      )
      .get() as { n: number };
    expect(interrupted.n).toBe(lost.length);
    await team.balancer.until((states) => states.get(`127.0.0.1:${victim.port}`) === 'UP');
  });
});
