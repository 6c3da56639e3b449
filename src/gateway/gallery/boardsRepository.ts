import { randomBytes } from 'node:crypto';
import type { Db } from '../storage/db';

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
  list(): Board[];
  get(id: string): Board | null;
  byName(name: string): Board | null;
  create(name: string, at: number): Board;
  rename(id: string, name: string): Board | null;
  remove(id: string): boolean;
  /** Adds the images (already on it: kept as they are); returns how many were new. */
  add(id: string, imageIds: readonly string[], at: number): number;
  removeImage(id: string, imageId: string): boolean;
}

const SELECT = `
  SELECT b.id, b.name, b.created_at AS createdAt,
    (SELECT COUNT(*) FROM board_images bi WHERE bi.board_id = b.id) AS images,
    (SELECT bi.image_id FROM board_images bi WHERE bi.board_id = b.id
      ORDER BY bi.added_at DESC, bi.image_id DESC LIMIT 1) AS coverId
  FROM boards b`;

export function createBoardsRepository(db: Db): BoardsRepository {
  const list = db.prepare(`${SELECT} ORDER BY b.name`);
  const byId = db.prepare(`${SELECT} WHERE b.id = ?`);
  const byName = db.prepare(`${SELECT} WHERE b.name = ?`);
  const insert = db.prepare('INSERT INTO boards (id, name, created_at) VALUES (?, ?, ?)');
  const rename = db.prepare('UPDATE boards SET name = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM boards WHERE id = ?');
  const add = db.prepare(
    `INSERT INTO board_images (board_id, image_id, added_at) VALUES (?, ?, ?)
     ON CONFLICT (board_id, image_id) DO NOTHING`,
  );
  const removeImage = db.prepare('DELETE FROM board_images WHERE board_id = ? AND image_id = ?');
  const get = (id: string) => (byId.get(id) as Board | undefined) ?? null;
  const addAll = db.transaction((id: string, imageIds: readonly string[], at: number) =>
    imageIds.reduce((added, imageId) => added + add.run(id, imageId, at).changes, 0),
  );
  return {
    list: () => list.all() as Board[],
    get,
    byName: (name) => (byName.get(name) as Board | undefined) ?? null,
    create(name, at) {
      const id = `board_${randomBytes(8).toString('hex')}`;
      insert.run(id, name, at);
      return get(id)!;
    },
    rename: (id, name) => (rename.run(name, id).changes === 1 ? get(id) : null),
    remove: (id) => remove.run(id).changes === 1,
    add: (id, imageIds, at) => addAll(id, imageIds, at),
    removeImage: (id, imageId) => removeImage.run(id, imageId).changes === 1,
  };
}
