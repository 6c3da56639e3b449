import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_STUDIO_STATE_BYTES,
  type ImageDetail,
  type StudioSessionInfo,
  type StudioStateResponse,
} from '../../src/shared/admin';
import {
  keptImages,
  startTestGateway,
  studioLogin,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

let a: TestGateway;
let b: TestGateway;
let studio: StudioClient;

beforeAll(async () => {
  [a, b] = await Promise.all([startTestGateway(), startTestGateway()]);
  studio = await studioLogin(a);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});

/**
 * A browser's cookie jar for 127.0.0.1: cookies ignore the port, so one jar serves every studio
 * on this host, and a cookie of the same name set by one replaces the other's.
 */
function hostJar() {
  const cookies = new Map<string, string>();
  return {
    async login(t: TestGateway): Promise<void> {
      const res = await fetch(await t.gateway.createStudioLogin(), { redirect: 'manual' });
      const [name, value] = res.headers.get('set-cookie')!.split(';')[0]!.split('=') as [
        string,
        string,
      ];
      cookies.set(name, value);
    },
    header: () => [...cookies].map(([n, v]) => `${n}=${v}`).join('; '),
  };
}

/** GET /api/admin/session as the browser sends it (Node's fetch may not set a Cookie header). */
function session(t: TestGateway, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(
        {
          host: '127.0.0.1',
          port: t.gateway.port,
          path: '/api/admin/session',
          headers: { cookie, 'x-atelier-studio': '1' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      )
      .on('error', reject);
  });
}

describe('two studios on 127.0.0.1 (issue 22, defect 15)', () => {
  it('each keeps its own session: signing in to one does not sign the other out', async () => {
    const jar = hostJar();
    await jar.login(a);
    await jar.login(b);
    expect(jar.header()).toContain(`atelier_session_${a.gateway.port}=`);
    expect(jar.header()).toContain(`atelier_session_${b.gateway.port}=`);
    expect(await session(a, jar.header())).toBe(200);
    expect(await session(b, jar.header())).toBe(200);
  });

  it('says when the session began: every tab of one login sums its session budget from there', async () => {
    const first = await studio.json<StudioSessionInfo>('/api/admin/session');
    const again = await studio.json<StudioSessionInfo>('/api/admin/session');
    expect(first.startedAt).toEqual(expect.any(Number));
    expect(again.startedAt).toBe(first.startedAt);
    const later = await studioLogin(a);
    const other = await later.json<StudioSessionInfo>('/api/admin/session');
    expect(other.startedAt).toBeGreaterThanOrEqual(first.startedAt!);
  });
});

describe('the studio’s state kept by the gateway', () => {
  const put = (name: string, body: unknown) =>
    studio.fetch(`/api/admin/studio/state/${encodeURIComponent(name)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const paramOf = async (res: Response) =>
    ((await res.json()) as { error: { param: string } }).error.param;

  it('keeps presets, drafts and preferences by name, in the database', async () => {
    const presets = [{ id: 'p1', name: 'Ink', style: 'ink wash' }];
    expect((await put('atelier.presets.v1', { value: presets })).status).toBe(200);
    expect((await put('atelier.generate.v1', { value: { draft: 'a kite' } })).status).toBe(200);
    expect((await put('atelier.generate.v1', { value: { draft: 'a red kite' } })).status).toBe(200);
    const { entries } = await studio.json<StudioStateResponse>('/api/admin/studio/state');
    expect(entries).toEqual({
      'atelier.presets.v1': presets,
      'atelier.generate.v1': { draft: 'a red kite' },
    });
    const row = a.db.prepare("SELECT value FROM studio_state WHERE name = 'atelier.presets.v1'");
    expect(JSON.parse(row.pluck().get() as string)).toEqual(presets);

    expect(
      (
        await studio.fetch('/api/admin/studio/state/atelier.generate.v1', {
          method: 'DELETE',
        })
      ).status,
    ).toBe(200);
    expect(
      Object.keys((await studio.json<StudioStateResponse>('/api/admin/studio/state')).entries),
    ).toEqual(['atelier.presets.v1']);
  });

  it('refuses a bad name, a missing or oversized value and unknown fields, naming them', async () => {
    expect(await paramOf(await put('__proto__', { value: 1 }))).toBe('name');
    expect(await paramOf(await put('atelier.x', {}))).toBe('value');
    expect(await paramOf(await put('atelier.x', { value: 1, extra: 2 }))).toBe('extra');
    const big = 'x'.repeat(MAX_STUDIO_STATE_BYTES);
    const res = await put('atelier.big', { value: big });
    expect([res.status, await paramOf(res)]).toEqual([400, 'value']);
    const { entries } = await studio.json<StudioStateResponse>('/api/admin/studio/state');
    expect(Object.hasOwn(entries, 'atelier.big')).toBe(false);
    // Without the studio session there is nothing to read.
    expect((await fetch(`${a.url}/api/admin/studio/state`)).status).toBe(401);
  });
});

describe('a lineage’s cost in the gallery detail (issue 22)', () => {
  it('sums the generation and every edit made from it, from any image of the lineage', async () => {
    const gen = await studio.fetch('/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-model-2', prompt: 'a pier', quality: 'low' }),
    });
    await gen.arrayBuffer();
    const [rootId] = await keptImages(a, gen.headers.get('x-request-id')!);
    const bytes = Buffer.from(
      await (await studio.fetch(`/api/admin/images/${rootId}/file`)).arrayBuffer(),
    );
    const edit = async (parentId: string, prompt: string) => {
      const form = new FormData();
      form.append('model', 'image-model-2');
      form.append('prompt', prompt);
      form.append('quality', 'low');
      form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'src.png');
      const res = await studio.fetch('/v1/images/edits', {
        method: 'POST',
        headers: { 'x-atelier-parent-image': parentId },
        body: form,
      });
      await res.arrayBuffer();
      return (await keptImages(a, res.headers.get('x-request-id')!))[0]!;
    };
    const child = await edit(rootId!, 'add a boat');
    const grandchild = await edit(child, 'add a gull');
    const branch = await edit(rootId!, 'make it night');
    const detail = (id: string) => studio.json<ImageDetail>(`/api/admin/images/${id}`);
    const all = await Promise.all([rootId!, child, grandchild, branch].map(detail));
    const total = all.reduce((sum, d) => sum + d.image.costMicros, 0);
    for (const d of all) expect(d.lineage).toEqual({ rootId, images: 4, costMicros: total });
  });
});
