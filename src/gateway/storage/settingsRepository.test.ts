import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openDatabase } from './db';
import { createSettingsRepository, defineSetting } from './settingsRepository';
import { tempDatabase } from './testing';

const theme = defineSetting('studio.theme', z.enum(['light', 'dark', 'system']), 'system');
const limits = defineSetting(
  'gateway.limits',
  z.object({ maxConcurrent4k: z.number().int().min(1), origins: z.array(z.string()) }),
  { maxConcurrent4k: 1, origins: [] },
);

describe('settings repository', () => {
  it('returns the default until a value is set, then the value, across reopening', () => {
    const { db, file } = tempDatabase();
    const settings = createSettingsRepository(db);
    expect(settings.get(theme)).toBe('system');
    settings.set(theme, 'dark');
    settings.set(limits, { maxConcurrent4k: 2, origins: ['http://localhost:5173'] });
    expect(settings.get(theme)).toBe('dark');

    const other = openDatabase(file);
    try {
      expect(createSettingsRepository(other).get(limits)).toEqual({
        maxConcurrent4k: 2,
        origins: ['http://localhost:5173'],
      });
    } finally {
      other.close();
    }
    expect(db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get('studio.theme')).toBe(
      '"dark"',
    );
  });

  it('refuses to store a value its schema rejects', () => {
    const { db } = tempDatabase();
    const settings = createSettingsRepository(db);
    expect(() => settings.set(limits, { maxConcurrent4k: 0, origins: [] })).toThrow();
    expect(settings.get(limits)).toEqual({ maxConcurrent4k: 1, origins: [] });
  });

  it('falls back to the default when the stored value no longer fits', () => {
    const { db } = tempDatabase();
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('studio.theme', '"sepia"');
    expect(createSettingsRepository(db).get(theme)).toBe('system');
  });

  it('resets a setting to its default', () => {
    const { db } = tempDatabase();
    const settings = createSettingsRepository(db);
    settings.set(theme, 'light');
    settings.reset(theme);
    expect(settings.get(theme)).toBe('system');
    expect(db.prepare('SELECT COUNT(*) FROM settings').pluck().get()).toBe(0);
  });
});
