import { randomBytes } from 'node:crypto';
import type { SqlEngine } from './engine';

/**
 * A key every instance on this database shares (32 random bytes), made once by whichever asks
 * first: the insert that loses the race changes nothing, and both read the winner's.
 */
export async function sharedKey(engine: SqlEngine, name: string, now: number): Promise<Buffer> {
  await engine.run(
    'INSERT INTO shared_keys (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
    [name, randomBytes(32).toString('hex'), now],
  );
  const row = await engine.get<{ value: string }>('SELECT value FROM shared_keys WHERE name = ?', [
    name,
  ]);
  if (!row) throw new Error(`the shared key '${name}' was not stored`);
  return Buffer.from(row.value, 'hex');
}
