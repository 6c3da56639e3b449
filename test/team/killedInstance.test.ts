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

async function generate(prompt: string) {
  const res = await fetch(`${team.balancer.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt, quality: 'low' }),
  });
  await res.arrayBuffer();
  return { status: res.status, requestId: res.headers.get('x-request-id') };
}

/** Which instances' usage logs hold the request. */
const recordedIn = (requestId: string | null) =>
  dbs.flatMap((db, index) =>
    db.prepare('SELECT 1 FROM usage_records WHERE request_id = ?').get(requestId) ? [index] : [],
  );

describe('an instance killed mid-burst behind HAProxy', () => {
  it('new work goes to the others at once, and the killed instance records what it held', async () => {
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
    expect(after.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    await team.balancer.until((states) => states.get(`127.0.0.1:${victim.port}`) === 'DOWN');
    for (const answer of after) {
      await expect.poll(() => recordedIn(answer.requestId)).toHaveLength(1);
      expect(recordedIn(answer.requestId)).not.toContain(1);
    }

    // The burst: the survivors' requests answered and recorded once; the victim's lost to their
    // clients (HAProxy's 502, no gateway request id).
    const answers = await burst;
    const lost = answers.filter((a) => a.requestId === null);
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.every((a) => a.status === 502)).toBe(true);
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
