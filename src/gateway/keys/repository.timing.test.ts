import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createKeysRepository } from './repository';
import { sqliteEngine } from '../storage/sqliteEngine';
import { tempDatabase } from '../storage/testing';

// A pass-through spy, not a fake: the real timingSafeEqual still decides. It proves that the
// stored digest is confirmed by a constant-time comparison rather than by `===` or Buffer.equals.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

describe('authenticate', () => {
  it('confirms the stored hash with crypto.timingSafeEqual', async () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(sqliteEngine(db));
    const { key, record } = await keys.create({ name: 'timed' });
    const spy = vi.mocked(crypto.timingSafeEqual);
    spy.mockClear();

    expect((await keys.authenticate(key))?.id).toBe(record.id);
    expect(spy).toHaveBeenCalledTimes(1);
    const [stored, presented] = spy.mock.calls[0] ?? [];
    expect(Buffer.from(stored as Uint8Array)).toEqual(
      crypto.createHash('sha256').update(key).digest(),
    );
    expect(Buffer.from(presented as Uint8Array)).toEqual(
      crypto.createHash('sha256').update(key).digest(),
    );
    expect(spy.mock.results[0]?.value).toBe(true);
  });
});
