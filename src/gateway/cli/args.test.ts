import { describe, expect, it } from 'vitest';
import { ArgsError, parseArgs } from './args';

const spec = { name: 'string', group: 'string', json: 'boolean' } as const;

describe('parseArgs', () => {
  it('reads --flag value, --flag=value, booleans and positionals in any order', () => {
    expect(
      parseArgs(['create', '--name', 'CI bot', '--group=a=b', 'extra', '--json'], spec),
    ).toEqual({
      flags: { name: 'CI bot', group: 'a=b', json: true },
      positionals: ['create', 'extra'],
    });
  });

  it('gives undefined for absent strings and false for absent booleans', () => {
    const { flags } = parseArgs([], spec);
    expect(flags).toEqual({ name: undefined, group: undefined, json: false });
  });

  it('treats everything after -- as positional', () => {
    expect(parseArgs(['--', '--name', '-x'], spec).positionals).toEqual(['--name', '-x']);
  });

  it('names an unknown flag and lists the known ones', () => {
    expect(() => parseArgs(['--nmae', 'x'], spec)).toThrow(
      new ArgsError('unknown option --nmae (known: --name, --group, --json)'),
    );
    expect(() => parseArgs(['--nmae=x'], spec)).toThrow(/^unknown option --nmae /);
    expect(() => parseArgs(['-n', 'x'], spec)).toThrow(/^unknown option -n /);
  });

  it('says when a value is missing or given to a boolean', () => {
    expect(() => parseArgs(['--name'], spec)).toThrow(ArgsError);
    expect(() => parseArgs(['--name'], spec)).toThrow(/--name/);
    expect(() => parseArgs(['--name', '--json'], spec)).toThrow(/--name/);
    expect(() => parseArgs(['--json=yes'], spec)).toThrow(/--json/);
  });
});
