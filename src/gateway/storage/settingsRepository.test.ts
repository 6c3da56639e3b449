import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openSettingsRepository, defineSetting } from './settingsRepository';
import { ENGINES, testStorage } from './testing';

const theme = defineSetting('studio.theme', z.enum(['light', 'dark', 'system']), 'system');
const limits = defineSetting(
  'gateway.limits',
  z.object({ maxConcurrent4k: z.number().int().min(1), origins: z.array(z.string()) }),
  { maxConcurrent4k: 1, origins: [] },
);

describe.each(ENGINES)('settings repository on %s', (kind) => {
  it('returns the default until a value is set, then the value, across reopening', async () => {
    const { engine, connect } = await testStorage(kind);
    const settings = await openSettingsRepository(engine);
    expect(settings.get(theme)).toBe('system');
    await settings.set(theme, 'dark');
    await settings.set(limits, { maxConcurrent4k: 2, origins: ['http://localhost:5173'] });
    expect(settings.get(theme)).toBe('dark');

    const other = await openSettingsRepository(await connect());
    expect(other.get(limits)).toEqual({ maxConcurrent4k: 2, origins: ['http://localhost:5173'] });
    expect(await engine.get('SELECT value FROM settings WHERE key = ?', ['studio.theme'])).toEqual({
      value: '"dark"',
    });
  });

  it('refuses to store a value its schema rejects', async () => {
    const { engine } = await testStorage(kind);
    const settings = await openSettingsRepository(engine);
    await expect(settings.set(limits, { maxConcurrent4k: 0, origins: [] })).rejects.toThrow();
    expect(settings.get(limits)).toEqual({ maxConcurrent4k: 1, origins: [] });
    expect(await engine.get('SELECT COUNT(*) AS n FROM settings')).toEqual({ n: 0 });
  });

  it('falls back to the default when the stored value no longer fits', async () => {
    const { engine } = await testStorage(kind);
    await engine.run('INSERT INTO settings (key, value) VALUES (?, ?)', [
      'studio.theme',
      '"sepia"',
    ]);
    expect((await openSettingsRepository(engine)).get(theme)).toBe('system');
  });

  it('refuses text that is not JSON at the table itself', async () => {
    const { engine } = await testStorage(kind);
    await expect(
      engine.run('INSERT INTO settings (key, value) VALUES (?, ?)', ['studio.theme', 'not json']),
    ).rejects.toThrow();
  });

  it('resets a setting to its default', async () => {
    const { engine } = await testStorage(kind);
    const settings = await openSettingsRepository(engine);
    await settings.set(theme, 'light');
    await settings.reset(theme);
    expect(settings.get(theme)).toBe('system');
    expect(await engine.get('SELECT COUNT(*) AS n FROM settings')).toEqual({ n: 0 });
  });
});

describe('settings repository: changes made elsewhere', () => {
  it("on SQLite, is stale after another connection's write and reads it on refresh", async () => {
    const { engine, connect } = await testStorage('sqlite');
    const settings = await openSettingsRepository(engine);
    await settings.set(theme, 'dark');
    // Its own writes leave it current.
    expect(settings.stale()).toBe(false);
    const cli = await openSettingsRepository(await connect());
    await cli.set(theme, 'light');
    expect(settings.stale()).toBe(true);
    expect(settings.get(theme)).toBe('dark');
    await settings.refresh();
    expect(settings.stale()).toBe(false);
    expect(settings.get(theme)).toBe('light');
  });

  it('keeps its own write when a refresh raced it', async () => {
    const { engine } = await testStorage('sqlite');
    const settings = await openSettingsRepository(engine);
    const refreshing = settings.refresh();
    const writing = settings.set(theme, 'dark');
    await Promise.all([refreshing, writing]);
    expect(settings.get(theme)).toBe('dark');
  });
});

describe('settings repository: changes made by another instance', () => {
  it('on PostgreSQL, is stale once the change notice arrives, and reads it on refresh', async () => {
    const { engine, connect } = await testStorage('postgres');
    const other = await connect();
    const settings = await openSettingsRepository(engine);
    const elsewhere = await openSettingsRepository(other);
    const noticed = new Promise<void>((resolve) => engine.onChange(() => resolve()));
    await elsewhere.set(theme, 'light');
    await noticed;
    expect(settings.stale()).toBe(true);
    expect(settings.get(theme)).toBe('system');
    await settings.refresh();
    expect(settings.stale()).toBe(false);
    expect(settings.get(theme)).toBe('light');
  });
});
