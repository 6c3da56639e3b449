import type { z } from 'zod';
import type { SqlEngine } from './engine';

/**
 * A named setting: its key in the table, the schema its JSON value must satisfy, and the value
 * used while it is unset. Declared once beside the code that reads it.
 */
export interface Setting<T> {
  key: string;
  schema: z.ZodType<T>;
  default: T;
}

export function defineSetting<T>(key: string, schema: z.ZodType<T>, defaultValue: T): Setting<T> {
  return { key, schema, default: defaultValue };
}

export interface SettingsRepository {
  /**
   * The value, or the default when unset or no longer valid: a value written by another version
   * of Atelier must not stop the gateway from starting. Read from the snapshot the repository
   * holds (the table is small and read on every request), so it costs no query.
   */
  get<T>(setting: Setting<T>): T;
  /** Validates against the setting's schema and throws (a ZodError) when the value does not fit. */
  set<T>(setting: Setting<T>, value: T): Promise<void>;
  /** Back to the default. */
  reset(setting: Setting<unknown>): Promise<void>;
  /** Whether another connection (the CLI, another instance) changed the database since it was read. */
  stale(): boolean;
  /** Reads the snapshot again. */
  refresh(): Promise<void>;
}

/** A setting as a function that reads it (its current value on each call). */
export function settingReader<T>(settings: Pick<SettingsRepository, 'get'>, setting: Setting<T>) {
  return (): T => settings.get(setting);
}

/** Several settings read together, as one object named field by field. */
export function settingsReader<T extends object>(
  settings: Pick<SettingsRepository, 'get'>,
  fields: { [K in keyof T]: Setting<T[K]> },
) {
  const named = Object.entries(fields) as Array<[string, Setting<unknown>]>;
  return (): T => Object.fromEntries(named.map(([name, s]) => [name, settings.get(s)])) as T;
}

/**
 * Opens the settings: the whole table is read once into a snapshot that `get` answers from. The
 * snapshot follows this repository's own writes at once; a write by another connection (the
 * `atelier` CLI, another gateway instance, whose writes announce themselves on PostgreSQL) shows
 * in `stale()`, and the request path refreshes
 * before it reads (http/freshSnapshots.ts), so a change applies to the next request as before.
 */
export async function openSettingsRepository(engine: SqlEngine): Promise<SettingsRepository> {
  /** The stored JSON text by key. */
  let stored = new Map<string, string>();
  /** Each setting's parsed value, for the snapshot it was parsed from. */
  let parsed = new WeakMap<Setting<unknown>, unknown>();
  let stamp = engine.changeStamp('settings');
  /** Counts this repository's writes, so a refresh that raced one reads again. */
  let writes = 0;

  const refresh = async (): Promise<void> => {
    for (;;) {
      const before = writes;
      const seen = engine.changeStamp('settings');
      const rows = await engine.all<{ key: string; value: string }>(
        'SELECT key, value FROM settings',
      );
      if (before !== writes) continue;
      stored = new Map(rows.map((row) => [row.key, row.value]));
      parsed = new WeakMap();
      stamp = seen;
      return;
    }
  };
  const store = (key: string, value: string | null) => {
    writes += 1;
    if (value === null) stored.delete(key);
    else stored.set(key, value);
    parsed = new WeakMap();
  };
  await refresh();

  return {
    get<T>(setting: Setting<T>): T {
      if (parsed.has(setting)) return parsed.get(setting) as T;
      const raw = stored.get(setting.key);
      let value = setting.default;
      if (raw !== undefined) {
        const result = setting.schema.safeParse(JSON.parse(raw));
        if (result.success) value = result.data;
      }
      parsed.set(setting, value);
      return value;
    },
    async set(setting, value) {
      const json = JSON.stringify(setting.schema.parse(value));
      await engine.run(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [setting.key, json],
      );
      store(setting.key, json);
      await engine.announceChange('settings');
    },
    async reset(setting) {
      await engine.run('DELETE FROM settings WHERE key = ?', [setting.key]);
      store(setting.key, null);
      await engine.announceChange('settings');
    },
    stale: () => engine.changeStamp('settings') !== stamp,
    refresh,
  };
}
