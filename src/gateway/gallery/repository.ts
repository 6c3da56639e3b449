import type { ImageRecord, ImageSource } from '../../shared/admin';
import type { EngineKind, SqlEngine, SqlValue } from '../storage/engine';
import { bindNamed } from '../storage/named';

/** An image as stored: the public record plus where its files are (relative to the images dir). */
export interface StoredImage extends ImageRecord {
  file: string;
  thumb: string | null;
  mask: string | null;
}

export type NewImage = Omit<StoredImage, 'favourite' | 'rejected' | 'hasMask' | 'thumb'>;

export interface ImageListQuery {
  /** Substring of the prompt, case-insensitive (SQLite's LIKE: ASCII; PostgreSQL's ILIKE). */
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
  insert(image: NewImage): Promise<StoredImage>;
  get(id: string): Promise<StoredImage | null>;
  exists(id: string): Promise<boolean>;
  /**
   * Newest first. A page never splits images created in the same millisecond (the n images of
   * one request often are), so `before` = the last one's createdAt loses none: such a page can be
   * a little longer than `limit`.
   */
  list(query: ImageListQuery): Promise<{ images: StoredImage[]; nextBefore: number | null }>;
  /** The image's parents, nearest first, up to the root of its edit chain. */
  chain(id: string): Promise<StoredImage[]>;
  /** A generation and every edit made from it, at any depth: their count and summed cost. */
  lineage(rootId: string): Promise<{ images: number; costMicros: number }>;
  setFavourite(id: string, favourite: boolean): Promise<StoredImage | null>;
  /** A reject hides the image from the gallery's lists (issue 22); false takes it back. */
  setRejected(id: string, rejected: boolean): Promise<StoredImage | null>;
  /** Every image kept from these requests (rejected ones too), by request, in their order. */
  ofRequests(requestIds: readonly string[]): Promise<Map<string, StoredImage[]>>;
  setThumb(id: string, thumb: string): Promise<void>;
  /** Deletes the row and returns it (its files are the caller's to remove), or null. */
  remove(id: string): Promise<StoredImage | null>;
  /** The images kept from each of these requests (in their order) and the prompt they were made from. */
  keptFor(requestIds: readonly string[]): Promise<Map<string, KeptImages>>;
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
const SELECT_COLUMNS = `${FIELDS.map((f) => `${COLUMNS[f]} AS "${f}"`).join(', ')},
  favourite, rejected, thumb`;
const SELECT = `SELECT ${SELECT_COLUMNS} FROM images`;
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

/** A list of ids as one parameter: a JSON array both engines unpack in SQL. */
const IDS_OF: Record<EngineKind, string> = {
  sqlite: 'SELECT value FROM json_each(?)',
  postgres: 'SELECT json_array_elements_text(CAST(? AS json))',
};

const INSERT = `INSERT INTO images (${FIELDS.map((f) => COLUMNS[f]).join(', ')})
  VALUES (${FIELDS.map(() => '?').join(', ')})`;

const CHAIN = `
  WITH RECURSIVE up(id, depth) AS (
    SELECT parent_id, 1 FROM images WHERE id = ? AND parent_id IS NOT NULL
    UNION ALL
    SELECT i.parent_id, up.depth + 1 FROM images i JOIN up ON i.id = up.id
    WHERE i.parent_id IS NOT NULL AND up.depth < ${MAX_CHAIN}
  )
  ${SELECT.replace('FROM images', 'FROM up JOIN images USING (id)')} ORDER BY up.depth`;

const LINEAGE = `
  WITH RECURSIVE down(id, depth) AS (
    SELECT id, 0 FROM images WHERE id = ?
    UNION ALL
    SELECT i.id, down.depth + 1 FROM images i JOIN down ON i.parent_id = down.id
    WHERE down.depth < ${MAX_CHAIN}
  )
  SELECT COUNT(*) AS images, COALESCE(SUM(cost_micros), 0) AS "costMicros"
  FROM down JOIN images USING (id)`;

export function createImagesRepository(engine: SqlEngine): ImagesRepository {
  const ids = IDS_OF[engine.kind];
  // SQLite's LIKE ignores ASCII case; PostgreSQL's ILIKE does what it did.
  const like = engine.kind === 'sqlite' ? 'LIKE' : 'ILIKE';
  const exists = async (id: string) =>
    (await engine.get('SELECT 1 AS one FROM images WHERE id = ?', [id])) !== undefined;
  const get = async (id: string) => {
    const row = await engine.get<Row>(`${SELECT} WHERE id = ?`, [id]);
    return row ? fromRow(row) : null;
  };
  const flag = async (column: 'favourite' | 'rejected', id: string, value: boolean) => {
    const changed = await engine.run(`UPDATE images SET ${column} = ? WHERE id = ?`, [
      value ? 1 : 0,
      id,
    ]);
    return changed.changes === 1 ? get(id) : null;
  };

  return {
    async insert(image) {
      // The parent may have been deleted while its edit ran: keep the image, drop the link.
      const parentId =
        image.parentId !== null && (await exists(image.parentId)) ? image.parentId : null;
      const row = { ...image, parentId } as Record<keyof NewImage, SqlValue>;
      await engine.run(
        INSERT,
        FIELDS.map((f) => row[f]),
      );
      return (await get(image.id))!;
    },
    get,
    exists,

    async list(query) {
      const conditions: string[] = [];
      const params: Record<string, SqlValue> = {};
      if (query.q) {
        conditions.push(`prompt ${like} @q ESCAPE '\\'`);
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
      const rowsOf = (sql: string, values: Record<string, SqlValue>) => {
        const bound = bindNamed(sql, values);
        return engine.all<Row>(bound.sql, bound.values);
      };
      const cursor = query.before === undefined ? [] : ['created_at < @before'];
      if (query.before !== undefined) params.before = query.before;
      const rows = await rowsOf(
        `${SELECT} ${where(cursor)} ORDER BY created_at DESC, id DESC LIMIT @limit`,
        { ...params, limit: query.limit + 1 },
      );
      if (rows.length <= query.limit) return { images: rows.map(fromRow), nextBefore: null };
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1]!.createdAt;
      if (rows[query.limit]!.createdAt === last) {
        // Images of the same millisecond straddle the page end: take all of them on this page.
        const seen = new Set(page.map((r) => r.id));
        const ties = await rowsOf(`${SELECT} ${where(['created_at = @last'])} ORDER BY id DESC`, {
          ...params,
          last,
        });
        page.push(...ties.filter((r) => !seen.has(r.id)));
      }
      return { images: page.map(fromRow), nextBefore: last };
    },

    chain: async (id) => (await engine.all<Row>(CHAIN, [id])).map(fromRow),
    lineage: async (rootId) =>
      (await engine.get<{ images: number; costMicros: number }>(LINEAGE, [rootId]))!,

    setFavourite: (id, value) => flag('favourite', id, value),
    setRejected: (id, value) => flag('rejected', id, value),
    async ofRequests(requestIds) {
      const byRequest = new Map<string, StoredImage[]>();
      if (requestIds.length === 0) return byRequest;
      const rows = await engine.all<Row>(
        `${SELECT} WHERE request_id IN (${ids}) ORDER BY request_id, image_index`,
        [JSON.stringify(requestIds)],
      );
      for (const row of rows) {
        const image = fromRow(row);
        const list = byRequest.get(image.requestId);
        if (list) list.push(image);
        else byRequest.set(image.requestId, [image]);
      }
      return byRequest;
    },
    async setThumb(id, path) {
      await engine.run('UPDATE images SET thumb = ? WHERE id = ?', [path, id]);
    },
    async remove(id) {
      // The row as it was, from the DELETE itself: of two removers, one gets it.
      const [row] = await engine.all<Row>(
        `DELETE FROM images WHERE id = ? RETURNING ${SELECT_COLUMNS}`,
        [id],
      );
      return row ? fromRow(row) : null;
    },
    async keptFor(requestIds) {
      const kept = new Map<string, KeptImages>();
      if (requestIds.length === 0) return kept;
      // One query for a page of usage rows; the (request_id, image_index) unique index serves it.
      const rows = await engine.all<{ requestId: string; id: string; prompt: string }>(
        `SELECT request_id AS "requestId", id, prompt FROM images
         WHERE request_id IN (${ids}) ORDER BY request_id, image_index`,
        [JSON.stringify(requestIds)],
      );
      for (const row of rows) {
        const entry = kept.get(row.requestId);
        if (entry) entry.imageIds.push(row.id);
        else kept.set(row.requestId, { imageIds: [row.id], prompt: row.prompt });
      }
      return kept;
    },
  };
}
