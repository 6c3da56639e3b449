import { EventEmitter, once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allUp, startHaproxy, type Balancer } from '../support/haproxy';
import { startTestGateway, type TestGateway } from '../support/gateway';

// Two real gateways behind Debian's HAProxy on loopback (test/support/haproxy.ts), as
// docs/team.md deploys them: HAProxy checks GET /healthz, spreads /v1 over the instances, and
// sees a gateway's drain before its port closes. Each gateway has its own SQLite file here (the
// shared PostgreSQL runs in test/team/multiInstance.test.ts); the key is the same in both.
let gateways: TestGateway[] = [];
let balancer: Balancer;
let key: string;

/** The `host:port` HAProxy names a gateway by. */
const serverName = (t: TestGateway) => new URL(t.url).host;

beforeAll(async () => {
  gateways = await Promise.all([0, 1].map(() => startTestGateway({ drainNoticeMs: 3_000 })));
  const [first, second] = gateways as [TestGateway, TestGateway];
  key = first.key;
  // The same key in both databases: only its hash is stored, so the row is copied as it is.
  const row = first.db.prepare('SELECT * FROM api_keys WHERE prefix = ?').get(key.slice(4, 12)) as
    Record<string, unknown> | undefined;
  if (!row) throw new Error('no key row');
  const columns = Object.keys(row);
  second.db
    .prepare(
      `INSERT INTO api_keys (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    )
    .run(...Object.values(row));
  gateways.forEach((t, index) =>
    t.gateway.events.on('usage', (requestId) => {
      recordedBy.set(requestId, [...(recordedBy.get(requestId) ?? []), index]);
      recordings.emit('recorded');
    }),
  );
  balancer = await startHaproxy(gateways.map((t) => ({ port: Number(new URL(t.url).port) })));
  await balancer.until(allUp);
});
afterAll(async () => {
  await balancer?.stop();
  await Promise.all(gateways.map((t) => t.close()));
});

async function generate(): Promise<{ status: number; requestId: string | null; body: string }> {
  const res = await fetch(`${balancer.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt: 'a kite', quality: 'low' }),
  });
  return { status: res.status, requestId: res.headers.get('x-request-id'), body: await res.text() };
}

/** Which instances recorded each request, heard from their `usage` events. */
const recordedBy = new Map<string, number[]>();
const recordings = new EventEmitter();

/** Waits until every request has its usage record; then which instance wrote each. */
async function servedBy(requestIds: readonly (string | null)[]): Promise<number[][]> {
  const missing = () => requestIds.some((id) => id === null || !recordedBy.has(id));
  while (missing()) await once(recordings, 'recorded');
  return requestIds.map((id) => recordedBy.get(id ?? '') ?? []);
}

describe('gateways behind HAProxy', () => {
  it('spreads requests over the healthy instances, and moves off one that drains', async () => {
    expect([...(await balancer.states()).keys()].sort()).toEqual(gateways.map(serverName).sort());

    const spread = [];
    for (let i = 0; i < 6; i += 1) spread.push(await generate());
    expect(spread.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Each request answered is recorded by exactly one instance; round robin uses both.
    const who = await servedBy(spread.map((r) => r.requestId));
    expect(who.every((instances) => instances.length === 1)).toBe(true);
    expect(new Set(who.flat())).toEqual(new Set([0, 1]));

    // The first instance stops: its /healthz answers 503 while its port stays open for 3 s, and
    // HAProxy marks it down before new work could be refused.
    const [leaving, staying] = gateways as [TestGateway, TestGateway];
    const closing = leaving.gateway.close(1_000);
    await balancer.until((states) => states.get(serverName(leaving)) === 'DOWN');
    expect((await balancer.states()).get(serverName(staying))).toBe('UP');
    const after = [];
    for (let i = 0; i < 4; i += 1) after.push(await generate());
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await servedBy(after.map((r) => r.requestId))).toEqual([[1], [1], [1], [1]]);
    await closing;
    expect(balancer.log()).toMatch(/Server atelier\/127\.0\.0\.1:\d+ is DOWN/);
  });
});
