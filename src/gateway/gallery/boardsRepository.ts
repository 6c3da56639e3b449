import { randomBytes } from 'node:crypto';
import type { SqlEngine } from '../storage/engine';

export interface Board {
  id: string;
  name: string;
  createdAt: number;
  /** Images on the board. */
  images: number;
  /** The image added last: the board's cover. */
  coverId: string | null;
}

/** Boards (issue 22): named collections of gallery images, for a project. */
export interface BoardsRepository {
  list(): Promise<Board[]>;
  get(id: string): Promise<Board | null>;
  byName(name: string): Promise<Board | null>;
  /** null when a board of that name exists (also one another instance made a moment ago). */
  create(name: string, at: number): Promise<Board | null>;
  rename(id: string, name: string): Promise<Board | null>;
  remove(id: string): Promise<boolean>;
  /** Adds the images (already on it: kept as they are); returns how many were new. */
  add(id: string, imageIds: readonly string[], at: number): Promise<number>;
  removeImage(id: string, imageId: string): Promise<boolean>;
}

const SELECT = `
  SELECT b.id, b.name, b.created_at AS "createdAt",
    (SELECT COUNT(*) FROM board_images bi WHERE bi.board_id = b.id) AS images,
    (SELECT bi.image_id FROM board_images bi WHERE bi.board_id = b.id
      ORDER BY bi.added_at DESC, bi.image_id DESC LIMIT 1) AS "coverId"
  FROM boards b`;

export function createBoardsRepository(engine: SqlEngine): BoardsRepository {
  const get = async (id: string) =>
    (await engine.get<Board>(`${SELECT} WHERE b.id = ?`, [id])) ?? null;
  return {
    list: () => engine.all<Board>(`${SELECT} ORDER BY b.name`),
    get,
    byName: async (name) => (await engine.get<Board>(`${SELECT} WHERE b.name = ?`, [name])) ?? null,
    async create(name, at) {
      const id = `board_${randomBytes(8).toString('hex')}`;
      const made = await engine.run(
        'INSERT INTO boards (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
        [id, name, at],
      );
      return made.changes === 1 ? get(id) : null;
    },
    rename: async (id, name) =>
      (await engine.run('UPDATE boards SET name = ? WHERE id = ?', [name, id])).changes === 1
        ? get(id)
        : null,
    remove: async (id) => (await engine.run('DELETE FROM boards WHERE id = ?', [id])).changes === 1,
    add: (id, imageIds, at) =>
      engine.transaction(async (tx) => {
        let added = 0;
        for (const imageId of imageIds) {
          const inserted = await tx.run(
            `INSERT INTO board_images (board_id, image_id, added_at) VALUES (?, ?, ?)
             ON CONFLICT (board_id, image_id) DO NOTHING`,
            [id, imageId, at],
          );
          added += inserted.changes;
        }
        return added;
      }),
    removeImage: async (id, imageId) =>
      (
        await engine.run('DELETE FROM board_images WHERE board_id = ? AND image_id = ?', [
          id,
          imageId,
        ])
      ).changes === 1,
  };
}
