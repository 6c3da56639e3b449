import { describe, expect, it } from 'vitest';
import { createImagesRepository, type NewImage } from './repository';
import { tempDatabase } from '../storage/testing';

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

describe('images repository', () => {
  it('pages newest first without splitting a millisecond across pages', () => {
    const repo = createImagesRepository(tempDatabase().db);
    for (const createdAt of [5, 4, 4, 4, 3, 2, 1]) repo.insert(image({ createdAt }));
    const first = repo.list({ limit: 2 });
    expect(first.images.map((i) => i.createdAt)).toEqual([5, 4, 4, 4]);
    expect(first.nextBefore).toBe(4);
    const second = repo.list({ limit: 2, before: 4 });
    expect([second.images.map((i) => i.createdAt), second.nextBefore]).toEqual([[3, 2], 2]);
    const last = repo.list({ limit: 2, before: 2 });
    expect([last.images.map((i) => i.createdAt), last.nextBefore]).toEqual([[1], null]);
  });

  it('walks an edit chain up to its root, and drops a link to a parent that is gone', () => {
    const repo = createImagesRepository(tempDatabase().db);
    const root = repo.insert(image());
    const child = repo.insert(image({ parentId: root.id }));
    const grandchild = repo.insert(image({ parentId: child.id }));
    expect(repo.chain(grandchild.id).map((i) => i.id)).toEqual([child.id, root.id]);
    expect(repo.chain(root.id)).toEqual([]);
    expect(repo.insert(image({ parentId: 'img_gone' })).parentId).toBeNull();
    repo.remove(child.id);
    expect(repo.get(grandchild.id)!.parentId).toBeNull();
  });

  it('lists 5,000 images from indexes, never sorting the table', () => {
    const { db } = tempDatabase();
    const repo = createImagesRepository(db);
    db.transaction(() => {
      for (let i = 0; i < 5_000; i += 1) {
        repo.insert(
          image({
            createdAt: i,
            source: i % 3 === 0 ? 'api' : 'studio',
            prompt: `prompt number ${i}`,
          }),
        );
      }
    })();
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
    expect(repo.list({ limit: 50, favourite: true }).images).toHaveLength(50);
    expect(repo.list({ limit: 50, q: 'number 4999' }).images.map((i) => i.createdAt)).toEqual([
      4999,
    ]);
  });
});
