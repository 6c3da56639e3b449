import { describe, expect, it } from 'vitest';
import { createImagesRepository, type NewImage } from './repository';
import { ENGINES, tempDatabase, testStorage } from '../storage/testing';
import { sqliteEngine } from '../storage/sqliteEngine';

let seq = 0;
function image(over: Partial<NewImage> = {}): NewImage {
  seq += 1;
  const id = over.id ?? `img_${seq.toString(16).padStart(8, '0')}`;
  return {
    id,
    requestId: `req_${seq}`,
    index: 0,
    createdAt: 1_000,
    source: 'studio',
    endpoint: '/images/generations',
    prompt: 'a prompt',
    revisedPrompt: null,
    model: 'image-model-2',
    requestedSize: '1024x1024',
    deliveredSize: '1024x1024',
    quality: 'low',
    outputFormat: 'png',
    outputCompression: null,
    background: 'auto',
    moderation: null,
    width: 1024,
    height: 1024,
    bytes: 10,
    inputTokens: 1,
    outputTokens: 2,
    totalTokens: 3,
    costMicros: 4,
    parentId: null,
    apiKeyId: null,
    fallbackStep: null,
    file: `2026/01/${id}.png`,
    mask: null,
    ...over,
  };
}

describe.each(ENGINES)('images repository on %s', (kind) => {
  it('pages newest first without splitting a millisecond across pages', async () => {
    const repo = createImagesRepository((await testStorage(kind)).engine);
    for (const createdAt of [5, 4, 4, 4, 3, 2, 1]) await repo.insert(image({ createdAt }));
    const first = await repo.list({ limit: 2 });
    expect(first.images.map((i) => i.createdAt)).toEqual([5, 4, 4, 4]);
    expect(first.nextBefore).toBe(4);
    const second = await repo.list({ limit: 2, before: 4 });
    expect([second.images.map((i) => i.createdAt), second.nextBefore]).toEqual([[3, 2], 2]);
    const last = await repo.list({ limit: 2, before: 2 });
    expect([last.images.map((i) => i.createdAt), last.nextBefore]).toEqual([[1], null]);
  });

  it('walks an edit chain up to its root, and drops a link to a parent that is gone', async () => {
    const repo = createImagesRepository((await testStorage(kind)).engine);
    const root = await repo.insert(image({ costMicros: 10 }));
    const child = await repo.insert(image({ parentId: root.id, costMicros: 20 }));
    const grandchild = await repo.insert(image({ parentId: child.id, costMicros: 30 }));
    expect((await repo.chain(grandchild.id)).map((i) => i.id)).toEqual([child.id, root.id]);
    expect(await repo.chain(root.id)).toEqual([]);
    expect(await repo.lineage(root.id)).toEqual({ images: 3, costMicros: 60 });
    expect((await repo.insert(image({ parentId: 'img_gone' }))).parentId).toBeNull();
    expect((await repo.remove(child.id))?.id).toBe(child.id);
    expect(await repo.remove(child.id)).toBeNull();
    expect((await repo.get(grandchild.id))!.parentId).toBeNull();
  });

  it('filters, flags, and finds the images of requests', async () => {
    const repo = createImagesRepository((await testStorage(kind)).engine);
    const a = await repo.insert(image({ requestId: 'req_x', index: 0, prompt: 'A Red Fox_1%' }));
    const b = await repo.insert(image({ requestId: 'req_x', index: 1, prompt: 'blue sea' }));
    const c = await repo.insert(image({ requestId: 'req_y', width: 512, height: 768 }));
    const ids = async (query: Partial<Parameters<typeof repo.list>[0]>) =>
      (await repo.list({ limit: 10, ...query })).images.map((i) => i.id).sort();
    expect(await ids({ q: 'red fox' })).toEqual([a.id]);
    // LIKE's wildcards in the search are text.
    expect(await ids({ q: '_1%' })).toEqual([a.id]);
    expect(await ids({ q: '%' })).toEqual([a.id]);
    expect(await ids({ size: '512x768' })).toEqual([c.id]);
    expect((await repo.setFavourite(b.id, true))?.favourite).toBe(true);
    expect(await ids({ favourite: true })).toEqual([b.id]);
    expect((await repo.setRejected(a.id, true))?.rejected).toBe(true);
    expect(await ids({})).toEqual([b.id, c.id].sort());
    expect(await ids({ rejected: true })).toEqual([a.id]);
    expect(await repo.setFavourite('img_none', true)).toBeNull();
    await repo.setThumb(c.id, 'thumbs/c.webp');
    expect((await repo.get(c.id))?.thumb).toBe('thumbs/c.webp');
    const of = await repo.ofRequests(['req_x', 'req_y', 'req_none']);
    expect([...of.keys()].sort()).toEqual(['req_x', 'req_y']);
    expect(of.get('req_x')!.map((i) => i.id)).toEqual([a.id, b.id]);
    const kept = await repo.keptFor(['req_x']);
    expect(kept.get('req_x')).toEqual({ imageIds: [a.id, b.id], prompt: 'A Red Fox_1%' });
    expect(await repo.exists(a.id)).toBe(true);
    expect(await repo.exists('img_none')).toBe(false);
  });
});

describe('images repository on SQLite', () => {
  it('lists 5,000 images from indexes, never sorting the table', async () => {
    const { db } = tempDatabase();
    const repo = createImagesRepository(sqliteEngine(db));
    // One transaction on the only connection: nothing else writes meanwhile.
    db.exec('BEGIN');
    for (let i = 0; i < 5_000; i += 1) {
      await repo.insert(
        image({
          createdAt: i,
          source: i % 3 === 0 ? 'api' : 'studio',
          prompt: `prompt number ${i}`,
        }),
      );
    }
    db.exec('COMMIT');
    db.prepare('UPDATE images SET favourite = 1 WHERE created_at % 100 = 0').run();
    db.exec('ANALYZE');
    const plan = (where: string) =>
      (
        db
          .prepare(
            `EXPLAIN QUERY PLAN SELECT * FROM images ${where} ORDER BY created_at DESC, id DESC LIMIT 51`,
          )
          .all() as Array<{ detail: string }>
      )
        .map((r) => r.detail)
        .join('; ');
    for (const where of [
      '',
      'WHERE created_at < 4000',
      'WHERE favourite = 1',
      "WHERE source = 'api' AND created_at < 4000",
      "WHERE prompt LIKE '%number 12%'",
    ]) {
      const detail = plan(where);
      expect(detail, where).toMatch(/USING (COVERING )?INDEX/);
      expect(detail, where).not.toMatch(/TEMP B-TREE/);
    }
    expect((await repo.list({ limit: 50, favourite: true })).images).toHaveLength(50);
    expect(
      (await repo.list({ limit: 50, q: 'number 4999' })).images.map((i) => i.createdAt),
    ).toEqual([4999]);
  });
});
