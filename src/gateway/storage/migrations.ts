import type BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_PRICES } from '../billing/prices';
import type { SqlQueries } from './engine';
import { POSTGRES_MIGRATIONS, type PostgresMigration } from './postgresMigrations';

export type { PostgresMigration } from './postgresMigrations';

type Db = BetterSqlite3.Database;

/**
 * One schema step. Migrations are append-only: a shipped migration is never edited, a change is a
 * new migration with the next number, because users' databases already ran the old text.
 *
 * One history for both engines: step N has the same number, name and effect on SQLite (`up`, the
 * text users' files ran) and on PostgreSQL (`postgresMigrations.ts`, the same tables in its
 * dialect), so `schema_migrations` means the same on either.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Db, now: number): void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    up(db, now) {
      // STRICT tables reject a value of the wrong type instead of storing it silently.
      db.exec(`
        CREATE TABLE api_keys (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          group_name TEXT NOT NULL DEFAULT 'default',
          prefix TEXT NOT NULL,
          hash BLOB NOT NULL UNIQUE,
          status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'deleted')),
          created_at INTEGER NOT NULL,
          last_used_at INTEGER,
          concurrency_limit INTEGER CHECK (concurrency_limit IS NULL OR concurrency_limit > 0)
        ) STRICT;

        -- No foreign key to api_keys: a usage row must never be lost because of what happened to
        -- a key, and keys are only ever soft-deleted anyway, so the name stays resolvable.
        CREATE TABLE usage_records (
          id INTEGER PRIMARY KEY,
          request_id TEXT NOT NULL UNIQUE,
          created_at INTEGER NOT NULL,
          endpoint TEXT NOT NULL,
          model TEXT,
          size TEXT,
          delivered_size TEXT,
          quality TEXT,
          output_format TEXT,
          n INTEGER NOT NULL DEFAULT 1,
          stream INTEGER NOT NULL DEFAULT 0 CHECK (stream IN (0, 1)),
          status INTEGER NOT NULL,
          error_code TEXT,
          error_message TEXT,
          input_tokens INTEGER NOT NULL DEFAULT 0,
          input_text_tokens INTEGER NOT NULL DEFAULT 0,
          input_image_tokens INTEGER NOT NULL DEFAULT 0,
          output_tokens INTEGER NOT NULL DEFAULT 0,
          output_text_tokens INTEGER NOT NULL DEFAULT 0,
          output_image_tokens INTEGER NOT NULL DEFAULT 0,
          total_tokens INTEGER NOT NULL DEFAULT 0,
          images INTEGER NOT NULL DEFAULT 0,
          latency_ms INTEGER NOT NULL DEFAULT 0,
          upstream_account_id TEXT,
          upstream_account_name TEXT,
          group_name TEXT,
          user TEXT,
          api_key_id TEXT,
          cost_micros INTEGER NOT NULL DEFAULT 0,
          price_model TEXT,
          fallback_step TEXT
        ) STRICT;
        CREATE INDEX usage_records_created_at ON usage_records (created_at);
        CREATE INDEX usage_records_api_key_id ON usage_records (api_key_id, created_at);
        CREATE INDEX usage_records_model ON usage_records (model, created_at);

        CREATE TABLE prices (
          model TEXT PRIMARY KEY,
          text_input INTEGER NOT NULL CHECK (text_input >= 0),
          image_input INTEGER NOT NULL CHECK (image_input >= 0),
          text_output INTEGER NOT NULL CHECK (text_output >= 0),
          image_output INTEGER NOT NULL CHECK (image_output >= 0),
          updated_at INTEGER NOT NULL
        ) STRICT;

        CREATE TABLE settings (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL CHECK (json_valid(value))
        ) STRICT;
      `);
      // Seeded from the default table as it stands when this database is created; changing the
      // defaults for existing databases later takes a migration of its own.
      const seed = db.prepare(
        `INSERT INTO prices (model, text_input, image_input, text_output, image_output, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      );
      for (const [model, p] of DEFAULT_PRICES) {
        seed.run(model, p.textInput, p.imageInput, p.textOutput, p.imageOutput, now);
      }
    },
  },
  {
    version: 2,
    name: 'accounts',
    up(db) {
      // Upstream accounts. Their secrets are never here: `secret_name` points into the keychain.
      db.exec(`
        CREATE TABLE accounts (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL UNIQUE,
          kind TEXT NOT NULL CHECK (kind IN ('simulator', 'api_key', 'subscription')),
          tier TEXT NOT NULL,
          group_name TEXT NOT NULL DEFAULT 'default',
          capacity INTEGER NOT NULL CHECK (capacity > 0),
          enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
          model_map TEXT NOT NULL DEFAULT '{}',
          max_pixels INTEGER NOT NULL CHECK (max_pixels > 0),
          base_url TEXT NOT NULL,
          issuer TEXT,
          bridge_model TEXT,
          upstream_account_id TEXT,
          secret_name TEXT,
          disabled_reason TEXT,
          cooldown_until INTEGER,
          cooldown_reason TEXT,
          created_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX accounts_group ON accounts (group_name);

        -- Per-key opt-in to the quality/size fallback ladder (spec 7.3).
        ALTER TABLE api_keys ADD COLUMN fallback_ladder INTEGER NOT NULL DEFAULT 0 CHECK (fallback_ladder IN (0, 1));
      `);
    },
  },
  {
    version: 3,
    name: 'images',
    up(db) {
      // The gallery: images kept from studio and API calls. The files live under
      // <dataDir>/images; paths here are relative to it, so a moved data folder keeps working.
      db.exec(`
        CREATE TABLE images (
          id TEXT PRIMARY KEY,
          request_id TEXT NOT NULL,
          image_index INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          source TEXT NOT NULL CHECK (source IN ('studio', 'api')),
          endpoint TEXT NOT NULL,
          prompt TEXT NOT NULL,
          revised_prompt TEXT,
          model TEXT NOT NULL,
          requested_size TEXT NOT NULL,
          delivered_size TEXT NOT NULL,
          quality TEXT,
          output_format TEXT NOT NULL,
          output_compression INTEGER,
          background TEXT,
          moderation TEXT,
          width INTEGER NOT NULL,
          height INTEGER NOT NULL,
          bytes INTEGER NOT NULL,
          input_tokens INTEGER NOT NULL DEFAULT 0,
          output_tokens INTEGER NOT NULL DEFAULT 0,
          total_tokens INTEGER NOT NULL DEFAULT 0,
          cost_micros INTEGER NOT NULL DEFAULT 0,
          favourite INTEGER NOT NULL DEFAULT 0 CHECK (favourite IN (0, 1)),
          -- An edit chain survives the deletion of a link: the child just loses its parent.
          parent_id TEXT REFERENCES images (id) ON DELETE SET NULL,
          api_key_id TEXT,
          fallback_step INTEGER,
          file TEXT NOT NULL,
          thumb TEXT,
          mask TEXT,
          UNIQUE (request_id, image_index)
        ) STRICT;
        -- The gallery pages newest first, optionally only favourites or one source; each of these
        -- walks an index in order and stops at the page size (a prompt search filters as it walks).
        CREATE INDEX images_created ON images (created_at DESC, id DESC);
        CREATE INDEX images_favourite ON images (created_at DESC, id DESC) WHERE favourite = 1;
        CREATE INDEX images_source ON images (source, created_at DESC, id DESC);
        CREATE INDEX images_parent ON images (parent_id);
      `);
    },
  },
  {
    version: 4,
    name: 'usage_pending',
    up(db) {
      // What was delivered beside what was asked, for quality as for size (a ladder step).
      db.exec(`ALTER TABLE usage_records ADD COLUMN delivered_quality TEXT;`);
      // A request's usage while its upstream work runs, written when it is dispatched: a crash
      // (kill -9, power) leaves it here, and the next start records it as interrupted. `record`
      // is the usage record as known then (JSON of shared/usageRecord.ts's fields), so this table
      // never needs a column when the record gains one.
      db.exec(`
        CREATE TABLE usage_pending (
          request_id TEXT PRIMARY KEY,
          record TEXT NOT NULL CHECK (json_valid(record)),
          attempts INTEGER NOT NULL DEFAULT 0,
          updated_at INTEGER NOT NULL,
          owner_pid INTEGER NOT NULL,
          owner_run TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
  {
    version: 5,
    name: 'account_cooldown_kind',
    up(db) {
      // Why an account rests decides what a caller hears when every account does: a used-up
      // usage window (429 usage_limit_reached) or a brief rest after outages (503, retry soon).
      db.exec(`
        ALTER TABLE accounts ADD COLUMN cooldown_kind TEXT
          CHECK (cooldown_kind IS NULL OR cooldown_kind IN ('usage_limit', 'rate_limit', 'outage'));
      `);
    },
  },
  {
    version: 6,
    name: 'key limits',
    up(db) {
      // Per-key limits (issue 15). What a key has used is never stored: it is read from
      // usage_records, so it survives restarts and cannot drift from the usage log.
      db.exec(`
        ALTER TABLE api_keys ADD COLUMN budget_micros INTEGER CHECK (budget_micros IS NULL OR budget_micros > 0);
        ALTER TABLE api_keys ADD COLUMN budget_period TEXT CHECK (budget_period IS NULL OR budget_period IN ('day', 'month', 'total'));
        ALTER TABLE api_keys ADD COLUMN rpm_limit INTEGER CHECK (rpm_limit IS NULL OR rpm_limit > 0);
        ALTER TABLE api_keys ADD COLUMN images_per_day INTEGER CHECK (images_per_day IS NULL OR images_per_day > 0);
        ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;

        -- A limited key's spend and images in a period are summed on each of its requests: this
        -- index covers that query, so it never reads the table (about 5x faster on a busy key).
        CREATE INDEX usage_records_key_spend ON usage_records (api_key_id, created_at, cost_micros, images);
      `);
    },
  },
  {
    version: 7,
    name: 'usage by account',
    up(db) {
      // The usage page's account filter and per-account figures (issue 15) read a period of one
      // upstream account's requests: without this index each read scanned the whole log.
      db.exec(`
        CREATE INDEX usage_records_account ON usage_records (upstream_account_id, created_at);
      `);
    },
  },
  {
    version: 8,
    name: 'estimated usage',
    up(db) {
      // Issue 23: a row billed at the gateway's estimate (the upstream reported no usage, or an
      // absurd one; or the gateway stopped mid-request) says so. Rows before this were not.
      db.exec(`
        ALTER TABLE usage_records ADD COLUMN estimated INTEGER NOT NULL DEFAULT 0
          CHECK (estimated IN (0, 1));
      `);
    },
  },
  {
    version: 9,
    name: 'image keepers',
    up(db) {
      // A reject on Generate hides the image from the gallery without deleting it (issue 22), so
      // it survives reloads and restarts and can be taken back. The gallery walks its newest-first
      // index and skips the rejected ones as it goes, like a prompt search.
      db.exec(`
        ALTER TABLE images ADD COLUMN rejected INTEGER NOT NULL DEFAULT 0 CHECK (rejected IN (0, 1));
      `);
    },
  },
  {
    version: 10,
    name: 'background responses',
    up(db) {
      // Background /v1/responses jobs (issue 25) and their events, kept for a while so a client
      // can poll a job or resume its stream. Plain SQL that PostgreSQL reads as well: no STRICT,
      // no SQLite-only types. Money and tokens stay in usage_records; a job names its request.
      db.exec(`
        CREATE TABLE response_jobs (
          id TEXT PRIMARY KEY,
          api_key_id TEXT NOT NULL,
          request_id TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('queued', 'in_progress', 'completed', 'failed', 'cancelled', 'incomplete')),
          created_at BIGINT NOT NULL,
          finished_at BIGINT,
          expires_at BIGINT NOT NULL,
          response TEXT NOT NULL
        );
        CREATE INDEX response_jobs_expiry ON response_jobs (expires_at);
        CREATE INDEX response_jobs_status ON response_jobs (status);
        CREATE TABLE response_job_events (
          job_id TEXT NOT NULL,
          sequence_number INTEGER NOT NULL,
          data TEXT NOT NULL,
          PRIMARY KEY (job_id, sequence_number)
        );
      `);
    },
  },
  {
    version: 11,
    name: 'studio state',
    up(db) {
      // The studio's own work and preferences (presets, the Generate draft, Edit's text, the
      // budget's choices), kept by the gateway rather than the page origin's localStorage, which a
      // changed port empties (issue 22). One JSON document per name; plain, portable SQL (times
      // are BIGINT ms).
      db.exec(`
        CREATE TABLE studio_state (
          name TEXT PRIMARY KEY,
          value TEXT NOT NULL,
          updated_at BIGINT NOT NULL
        );
      `);
    },
  },
  {
    version: 12,
    name: 'boards',
    up(db) {
      // Boards: the person's collections of gallery images for a project (issue 22). An image may
      // be on several boards; deleting either side drops the link.
      db.exec(`
        CREATE TABLE boards (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL UNIQUE,
          created_at BIGINT NOT NULL
        );
        CREATE TABLE board_images (
          board_id TEXT NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
          image_id TEXT NOT NULL REFERENCES images (id) ON DELETE CASCADE,
          added_at BIGINT NOT NULL,
          PRIMARY KEY (board_id, image_id)
        );
        CREATE INDEX board_images_image ON board_images (image_id);
      `);
    },
  },
  {
    version: 13,
    name: 'limit reservations',
    up(db) {
      // Key-limit reservations of requests in flight (limits/ledger.ts), shared by every process
      // on the database: a row per admitted request until its usage row is written. The owning
      // process renews held_until while the request runs, so a dead one's rows lapse.
      db.exec(`
        CREATE TABLE limit_reservations (
          request_id TEXT PRIMARY KEY,
          api_key_id TEXT NOT NULL,
          started_at INTEGER NOT NULL,
          cost_micros INTEGER NOT NULL DEFAULT 0,
          images INTEGER NOT NULL DEFAULT 0,
          owner TEXT NOT NULL,
          held_until INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX limit_reservations_started ON limit_reservations (api_key_id, started_at);
        CREATE INDEX limit_reservations_owner ON limit_reservations (owner);
      `);
    },
  },
  {
    version: 14,
    name: 'account slot leases',
    up(db) {
      // Per-account concurrency slots held by the instances of a team gateway (accounts/
      // slotLeases.ts): a row per upstream call in flight, renewed by its instance while it runs.
      // The embedded gateway keeps its slots in memory and leaves this table empty.
      db.exec(`
        CREATE TABLE account_leases (
          id TEXT PRIMARY KEY,
          account_id TEXT NOT NULL,
          weight INTEGER NOT NULL CHECK (weight > 0),
          owner TEXT NOT NULL,
          held_until INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX account_leases_account ON account_leases (account_id);
        CREATE INDEX account_leases_owner ON account_leases (owner);
      `);
    },
  },
  {
    version: 15,
    name: 'usage pending lease',
    up(db) {
      // Until when a pending row's run vouches for it (ms; 0 for rows written before this step).
      // The run renews it while it lives; on a shared database another instance records the rows
      // of a run whose lease ended (issue 21).
      db.exec(`ALTER TABLE usage_pending ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;`);
    },
  },
  {
    version: 16,
    name: 'studio sessions',
    up(db) {
      // The studio's login tokens and sessions, as SHA-256 digests (hex): in the database so any
      // instance of a team gateway accepts what another issued (issue 21). `kind` is 'token' or
      // 'session'; `at` is when a token was issued or a session last used, `since` its start.
      db.exec(`
        CREATE TABLE studio_sessions (
          digest TEXT PRIMARY KEY,
          kind TEXT NOT NULL CHECK (kind IN ('token', 'session')),
          at BIGINT NOT NULL,
          since BIGINT NOT NULL
        );
      `);
    },
  },
  {
    version: 17,
    name: 'shared keys',
    up(db) {
      // Keys every instance of a team gateway must share (issue 21): the signing key of
      // `response_format: "url"` image URLs, so a URL one instance made is valid on any. Random
      // bytes, hex; made once by whichever instance asks first.
      db.exec(`
        CREATE TABLE shared_keys (
          name TEXT PRIMARY KEY,
          value TEXT NOT NULL,
          created_at BIGINT NOT NULL
        );
      `);
    },
  },
  {
    version: 18,
    name: 'sealed secrets',
    up(db) {
      // Upstream keys and OAuth tokens of a gateway with no OS keychain (issue 21 item 4), sealed
      // with AES-256-GCM (secrets/databaseStore.ts): the key's id, the nonce, and the ciphertext
      // with its tag. Never a secret in the clear. Empty where the keychain is used.
      db.exec(`
        CREATE TABLE secrets (
          name TEXT PRIMARY KEY,
          key_id TEXT NOT NULL,
          nonce BLOB NOT NULL,
          sealed BLOB NOT NULL,
          updated_at BIGINT NOT NULL
        );
      `);
    },
  },
  {
    version: 19,
    name: 'job leases and lease clock',
    up(db) {
      // The gateway run that runs a background response or a studio run, and until when it
      // vouches for it (ms, by the lease clock: storage/engine.ts LEASE_CLOCK). A gateway starting
      // fails only the unfinished jobs whose run is gone: on SQLite its process, on PostgreSQL
      // its lease (issue 21). Rows written before this step have no owner and count as left.
      db.exec(`
        ALTER TABLE response_jobs ADD COLUMN owner_pid INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE response_jobs ADD COLUMN owner_run TEXT NOT NULL DEFAULT '';
        ALTER TABLE response_jobs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
      `);
    },
  },
  {
    version: 20,
    name: 'usage upstream request id',
    up(db) {
      // The request id(s) the upstream answered with (its `x-request-id`), comma-separated for a
      // request of several upstream calls: a desktop's row names the team gateway's row.
      db.exec(`ALTER TABLE usage_records ADD COLUMN upstream_request_id TEXT;`);
    },
  },
]; /**
 * Brings a database up to the latest schema and returns the versions it applied. Each migration
 * runs in its own IMMEDIATE transaction that re-checks whether it is applied, so two processes
 * opening the same file at once (the app and `atelier keys`) cannot both apply it.
 */
export function runMigrations(
  db: Db,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => number = Date.now,
): number[] {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`Migration ${m.name} is numbered ${m.version}, expected ${i + 1}`);
  });
  db.exec(`
    CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    ) STRICT
  `);
  const latest = (
    db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }
  ).v;
  if (latest !== null && latest > migrations.length) {
    // A downgrade: running an older build on a newer database would corrupt it.
    throw new Error(
      `The database schema is version ${latest} but this build of Atelier knows only up to ` +
        `${migrations.length}. Use a newer Atelier or another data directory.`,
    );
  }

  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').pluck();
  const record = db.prepare(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  const applied: number[] = [];
  for (const m of migrations) {
    const apply = db.transaction(() => {
      if (isApplied.get(m.version) !== undefined) return;
      const at = now();
      m.up(db, at);
      record.run(m.version, m.name, at);
      applied.push(m.version);
    });
    apply.immediate();
  }
  return applied;
}

/** The lock every instance takes before it migrates (pg_advisory_xact_lock's key). */
const MIGRATION_LOCK = 0x6174656c; // "atel"

/**
 * PostgreSQL's runner, the same contract as runMigrations: each step in its own transaction that
 * re-checks whether it is applied, under an advisory lock, so instances starting together apply
 * each step once and wait for each other.
 */
export async function runPostgresMigrations(
  engine: { transaction: <T>(fn: (tx: SqlQueries) => Promise<T>) => Promise<T> },
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
  now: () => number = Date.now,
): Promise<number[]> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`Migration ${m.name} is numbered ${m.version}, expected ${i + 1}`);
    const sqlite = MIGRATIONS[i];
    if (migrations === POSTGRES_MIGRATIONS && sqlite?.name !== m.name)
      throw new Error(
        `PostgreSQL migration ${m.version} is ${m.name}, SQLite's is ${sqlite?.name}`,
      );
  });
  // One history: a step added to migrations.ts needs its PostgreSQL text in postgresMigrations.ts.
  if (migrations === POSTGRES_MIGRATIONS && migrations.length !== MIGRATIONS.length) {
    throw new Error(
      `PostgreSQL has ${migrations.length} migrations, SQLite ${MIGRATIONS.length}: ` +
        'translate the missing ones into postgresMigrations.ts',
    );
  }
  const latest = await engine.transaction(async (tx) => {
    await tx.get('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
    await tx.run(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at BIGINT NOT NULL
      )`);
    return (await tx.get<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations'))!
      .v;
  });
  if (latest !== null && latest > migrations.length) {
    throw new Error(
      `The database schema is version ${latest} but this build of Atelier knows only up to ` +
        `${migrations.length}. Use a newer Atelier or another database.`,
    );
  }
  const applied: number[] = [];
  for (const m of migrations) {
    await engine.transaction(async (tx) => {
      await tx.get('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
      if (await tx.get('SELECT 1 FROM schema_migrations WHERE version = ?', [m.version])) return;
      const at = now();
      await m.up(tx, at);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
        m.version,
        m.name,
        at,
      ]);
      applied.push(m.version);
    });
  }
  return applied;
}
