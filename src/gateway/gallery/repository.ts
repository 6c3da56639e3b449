import type { ImageRecord, ImageSource } from '../../shared/admin';
import type { Db } from '../storage/db';

/** An image as stored: the public record plus where its files are (relative to the images dir). */
export interface StoredImage extends ImageRecord {
  file: string;
  thumb: string | null;
  mask: string | null;
}

export type NewImage = Omit<StoredImage, 'favourite' | 'rejected' | 'hasMask' | 'thumb'>;

export interface ImageListQuery {
  /** Substring of the prompt (case-insensitive for ASCII, as SQLite's LIKE). */
  q?: string;
  favourite?: boolean;
  /** True: only the rejected images; otherwise every image but them. */
  rejected?: boolean;
  /** Only the images on this board. */
  board?: string;
  source?: ImageSource;
  /** Exact model name. */
  model?: string;
  /** WIDTHxHEIGHT of the file, or the requested size (which may be `auto`). */
  size?: string;
  /** The API key's id. */
  key?: string;
  /** Inclusive lower bound of created_at (ms). */
  since?: number;
  /** Exclusive upper bound of created_at (ms). */
  until?: number;
  /** Exclusive: images created before this ms. */
  before?: number;
  limit: number;
}

export interface ImagesRepository {
  insert(image: NewImage): StoredImage;
  get(id: string): StoredImage | null;
  exists(id: string): boolean;
  /**
   * Newest first. A page never splits images created in the same millisecond (the n images of
   * one request often are), so `before` = the last one's createdAt loses none: such a page can be
   * a little longer than `limit`.
   */
  list(query: ImageListQuery): { images: StoredImage[]; nextBefore: number | null };
  /** The image's parents, nearest first, up to the root of its edit chain. */
  chain(id: string): StoredImage[];
  /** A generation and every edit made from it, at any depth: their count and summed cost. */
  lineage(rootId: string): { images: number; costMicros: number };
  setFavourite(id: string, favourite: boolean): StoredImage | null;
  /** A reject hides the image from the gallery's lists (issue 22); false takes it back. */
  setRejected(id: string, rejected: boolean): StoredImage | null;
  /** Every image kept from these requests (rejected ones too), by request, in their order. */
  ofRequests(requestIds: readonly string[]): Map<string, StoredImage[]>;
  setThumb(id: string, thumb: string): void;
  /** Deletes the row and returns it (its files are the caller's to remove), or null. */
  remove(id: string): StoredImage | null;
  /** The images kept from each of these requests (in their order) and the prompt they were made from. */
  keptFor(requestIds: readonly string[]): Map<string, KeptImages>;
}

export interface KeptImages {
  imageIds: string[];
  prompt: string;
}

const COLUMNS = {
  id: 'id',
  requestId: 'request_id',
  index: 'image_index',
  createdAt: 'created_at',
  source: 'source',
  endpoint: 'endpoint',
  prompt: 'prompt',
  revisedPrompt: 'revised_prompt',
  model: 'model',
  requestedSize: 'requested_size',
  deliveredSize: 'delivered_size',
  quality: 'quality',
  outputFormat: 'output_format',
  outputCompression: 'output_compression',
  background: 'background',
  moderation: 'moderation',
  width: 'width',
  height: 'height',
  bytes: 'bytes',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  totalTokens: 'total_tokens',
  costMicros: 'cost_micros',
  parentId: 'parent_id',
  apiKeyId: 'api_key_id',
  fallbackStep: 'fallback_step',
  file: 'file',
  mask: 'mask',
} as const satisfies Record<keyof NewImage, string>;

const FIELDS = Object.keys(COLUMNS) as (keyof NewImage)[];
const SELECT = `SELECT ${FIELDS.map((f) => `${COLUMNS[f]} AS "${f}"`).join(', ')},
  favourite, rejected, thumb FROM images`;
/** The deepest edit chain we walk: a guard, not a limit anyone should meet. */
const MAX_CHAIN = 1000;

type Row = Omit<StoredImage, 'favourite' | 'rejected' | 'hasMask'> & {
  favourite: number;
  rejected: number;
};

function fromRow(row: Row): StoredImage {
  return {
    ...row,
    favourite: row.favourite === 1,
    rejected: row.rejected === 1,
    hasMask: row.mask !== null,
  };
}

export function createImagesRepository(db: Db): ImagesRepository {
  const insert = db.prepare(
    `INSERT INTO images (${FIELDS.map((f) => COLUMNS[f]).join(', ')})
     VALUES (${FIELDS.map((f) => `@${f}`).join(', ')})`,
  );
  const byId = db.prepare(`${SELECT} WHERE id = ?`);
  const exists = db.prepare('SELECT 1 FROM images WHERE id = ?').pluck();
  const favourite = db.prepare('UPDATE images SET favourite = ? WHERE id = ?');
  const rejected = db.prepare('UPDATE images SET rejected = ? WHERE id = ?');
  const ofRequests = db.prepare(
    `${SELECT} WHERE request_id IN (SELECT value FROM json_each(?)) ORDER BY request_id, image_index`,
  );
  const thumb = db.prepare('UPDATE images SET thumb = ? WHERE id = ?');
  const del = db.prepare('DELETE FROM images WHERE id = ?');
  // One query for a page of usage rows; the (request_id, image_index) unique index serves it.
  const keptFor = db.prepare(
    `SELECT request_id AS requestId, id, prompt FROM images
     WHERE request_id IN (SELECT value FROM json_each(?)) ORDER BY request_id, image_index`,
  );
  const chain = db.prepare(`
    WITH RECURSIVE up(id, depth) AS (
      SELECT parent_id, 1 FROM images WHERE id = @id AND parent_id IS NOT NULL
      UNION ALL
      SELECT i.parent_id, up.depth + 1 FROM images i JOIN up ON i.id = up.id
      WHERE i.parent_id IS NOT NULL AND up.depth < ${MAX_CHAIN}
    )
    ${SELECT.replace('FROM images', 'FROM up JOIN images USING (id)')} ORDER BY up.depth`);

  const lineage = db.prepare(`
    WITH RECURSIVE down(id, depth) AS (
      SELECT id, 0 FROM images WHERE id = @id
      UNION ALL
      SELECT i.id, down.depth + 1 FROM images i JOIN down ON i.parent_id = down.id
      WHERE down.depth < ${MAX_CHAIN}
    )
    SELECT COUNT(*) AS images, COALESCE(SUM(cost_micros), 0) AS costMicros
    FROM down JOIN images USING (id)`);

  const get = (id: string) => {
    const row = byId.get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  };

  return {
    insert(image) {
      // The parent may have been deleted while its edit ran: keep the image, drop the link.
      const parentId =
        image.parentId !== null && exists.get(image.parentId) ? image.parentId : null;
      insert.run({ ...image, parentId });
      return get(image.id)!;
    },
    get,
    exists: (id) => exists.get(id) !== undefined,

    list(query) {
      const conditions: string[] = [];
      const params: Record<string, unknown> = {};
      if (query.q) {
        conditions.push(`prompt LIKE @q ESCAPE '\\'`);
        params.q = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      }
      if (query.favourite) conditions.push('favourite = 1');
      conditions.push(query.rejected ? 'rejected = 1' : 'rejected = 0');
      if (query.board !== undefined) {
        conditions.push('id IN (SELECT image_id FROM board_images WHERE board_id = @board)');
        params.board = query.board;
      }
      if (query.source) {
        conditions.push('source = @source');
        params.source = query.source;
      }
      if (query.model) {
        conditions.push('model = @model');
        params.model = query.model;
      }
      if (query.size) {
        conditions.push(`(requested_size = @size OR (width || 'x' || height) = @size)`);
        params.size = query.size;
      }
      if (query.key) {
        conditions.push('api_key_id = @key');
        params.key = query.key;
      }
      if (query.since !== undefined) {
        conditions.push('created_at >= @since');
        params.since = query.since;
      }
      if (query.until !== undefined) {
        conditions.push('created_at < @until');
        params.until = query.until;
      }
      const where = (extra: string[]) => {
        const all = [...conditions, ...extra];
        return all.length ? `WHERE ${all.join(' AND ')}` : '';
      };
      const cursor = query.before === undefined ? [] : ['created_at < @before'];
      if (query.before !== undefined) params.before = query.before;
      const rows = db
        .prepare(`${SELECT} ${where(cursor)} ORDER BY created_at DESC, id DESC LIMIT @limit`)
        .all({ ...params, limit: query.limit + 1 }) as Row[];
      if (rows.length <= query.limit) return { images: rows.map(fromRow), nextBefore: null };
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1]!.createdAt;
      if (rows[query.limit]!.createdAt === last) {
        // Images of the same millisecond straddle the page end: take all of them on this page.
        const seen = new Set(page.map((r) => r.id));
        const ties = db
          .prepare(`${SELECT} ${where(['created_at = @last'])} ORDER BY id DESC`)
          .all({ ...params, last }) as Row[];
        page.push(...ties.filter((r) => !seen.has(r.id)));
      }
      return { images: page.map(fromRow), nextBefore: last };
    },

    chain: (id) => (chain.all({ id }) as Row[]).map(fromRow),
    lineage: (rootId) => lineage.get({ id: rootId }) as { images: number; costMicros: number },

    setFavourite(id, value) {
      return favourite.run(value ? 1 : 0, id).changes === 1 ? get(id) : null;
    },
    setRejected(id, value) {
      return rejected.run(value ? 1 : 0, id).changes === 1 ? get(id) : null;
    },
    ofRequests(requestIds) {
      const byRequest = new Map<string, StoredImage[]>();
      if (requestIds.length === 0) return byRequest;
      for (const row of ofRequests.all(JSON.stringify(requestIds)) as Row[]) {
        const image = fromRow(row);
        const list = byRequest.get(image.requestId);
        if (list) list.push(image);
        else byRequest.set(image.requestId, [image]);
      }
      return byRequest;
    },
    setThumb(id, path) {
      thumb.run(path, id);
    },
    remove(id) {
      const image = get(id);
      if (!image) return null;
      del.run(id);
      return image;
    },
    keptFor(requestIds) {
      const kept = new Map<string, KeptImages>();
      if (requestIds.length === 0) return kept;
      const rows = keptFor.all(JSON.stringify(requestIds)) as Array<{
        requestId: string;
        id: string;
        prompt: string;
      }>;
      for (const row of rows) {
        const entry = kept.get(row.requestId);
        if (entry) entry.imageIds.push(row.id);
        else kept.set(row.requestId, { imageIds: [row.id], prompt: row.prompt });
      }
      return kept;
    },
  };
}
