import { describe, expect, it } from 'vitest';
import { healthReport } from './health';

describe('the health report', () => {
  it('is ok only with a reachable, current database and no drain', () => {
    expect(healthReport({ reachable: true, migrations: 'current' }, false).status).toBe('ok');
    expect(healthReport({ reachable: false, migrations: 'unknown' }, false)).toEqual({
      status: 'unavailable',
      database: 'unreachable',
      migrations: 'unknown',
      accepting: false,
    });
    expect(healthReport({ reachable: true, migrations: 'ahead' }, false).accepting).toBe(false);
  });

  it('says draining first, whatever the database says', () => {
    expect(healthReport({ reachable: false, migrations: 'unknown' }, true).status).toBe('draining');
    expect(healthReport({ reachable: true, migrations: 'current' }, true)).toEqual({
      status: 'draining',
      database: 'reachable',
      migrations: 'current',
      accepting: false,
    });
  });
});
