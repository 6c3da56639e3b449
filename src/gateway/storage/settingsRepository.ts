import type { z } from 'zod';
import type { Db } from './db';

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
   * The stored value, or the default when unset or no longer valid: a value written by another
   * version of Atelier must not stop the gateway from starting.
   */
  get<T>(setting: Setting<T>): T;
  /** Validates against the setting's schema and throws (a ZodError) when the value does not fit. */
  set<T>(setting: Setting<T>, value: T): void;
  /** Back to the default. */
  reset(setting: Setting<unknown>): void;
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

export function createSettingsRepository(db: Db): SettingsRepository {
  const select = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const upsert = db.prepare(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  const remove = db.prepare('DELETE FROM settings WHERE key = ?');

  return {
    get(setting) {
      const raw = select.get(setting.key) as string | undefined;
      if (raw === undefined) return setting.default;
      const parsed = setting.schema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : setting.default;
    },
    set(setting, value) {
      const valid = setting.schema.parse(value);
      upsert.run(setting.key, JSON.stringify(valid));
    },
    reset(setting) {
      remove.run(setting.key);
    },
  };
}
