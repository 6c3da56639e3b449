import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveCallbackPort } from '../oauth/callbackPort';
import { ArgsError } from './args';
import { parseServeArgs, type ServeArgs } from './serve';

const ENV = { ATELIER_DATA_DIR: '/data/atelier' };

function parsed(argv: string[], env: NodeJS.ProcessEnv = ENV): Exclude<ServeArgs, { help: true }> {
  const args = parseServeArgs(argv, env);
  if (args.help) throw new Error('expected options, got help');
  return args;
}

describe('atelier serve flags', () => {
  it('leaves the address to Settings and the sign-in callback port to the gateway', () => {
    expect(parsed([])).toEqual({
      help: false,
      host: undefined,
      port: undefined,
      dataDir: path.resolve('/data/atelier'),
      databaseUrl: undefined,
      allowedOrigins: [],
      upstreamUrl: undefined,
      simulatorSpeed: undefined,
      oauthCallbackPort: undefined,
      drainNoticeMs: undefined,
    });
  });

  it('reads every flag', () => {
    expect(
      parsed([
        '--host=::1',
        '--port',
        '0',
        '--data-dir',
        '/tmp/d',
        '--upstream-url',
        'https://api.example.com/v1',
        '--simulator-speed',
        '0.5',
        '--allow-origin',
        'http://localhost:3000',
        '--allow-origin',
        'http://localhost:5173',
        '--oauth-callback-port',
        '1456',
        '--drain-seconds',
        '2.5',
        '--database',
        'postgres://atelier@db.internal:5432/atelier',
      ]),
    ).toEqual({
      help: false,
      host: '::1',
      port: 0,
      dataDir: path.resolve('/tmp/d'),
      databaseUrl: 'postgres://atelier@db.internal:5432/atelier',
      allowedOrigins: ['http://localhost:3000', 'http://localhost:5173'],
      upstreamUrl: 'https://api.example.com/v1',
      simulatorSpeed: 0.5,
      oauthCallbackPort: 1456,
      drainNoticeMs: 2500,
    });
  });

  it('takes the database from ATELIER_DATABASE_URL, the flag over it, and only PostgreSQL', () => {
    const env = { ...ENV, ATELIER_DATABASE_URL: 'postgresql://a@h/team' };
    expect(parsed([], env).databaseUrl).toBe('postgresql://a@h/team');
    expect(parsed(['--database=postgres://b@h/other'], env).databaseUrl).toBe(
      'postgres://b@h/other',
    );
    expect(parsed([], { ...ENV, ATELIER_DATABASE_URL: '' }).databaseUrl).toBeUndefined();
    expect(() => parseServeArgs(['--database', 'mysql://h/db'], ENV)).toThrow(
      "--database must be a PostgreSQL URL (postgres:// or postgresql://), got 'mysql:'",
    );
    expect(() => parseServeArgs(['--database', 'atelier.db'], ENV)).toThrow(
      /^--database must be a PostgreSQL URL/,
    );
  });

  it('takes the callback port from ATELIER_OAUTH_CALLBACK_PORT, and the flag over it', () => {
    const env = { ...ENV, ATELIER_OAUTH_CALLBACK_PORT: '2455' };
    expect(parsed([], env).oauthCallbackPort).toBe(2455);
    expect(parsed(['--oauth-callback-port=0'], env).oauthCallbackPort).toBe(0);
    // Set but empty is unset, as for ATELIER_DATA_DIR.
    expect(parsed([], { ...ENV, ATELIER_OAUTH_CALLBACK_PORT: '' }).oauthCallbackPort).toBe(
      undefined,
    );
  });

  it.each(['', 'eighty', '-1', '65536', '1e3', '0x5bf', ' 1455', '1455.0', '99999999'])(
    'refuses --oauth-callback-port %j, naming the flag',
    (value) => {
      // `=`: node would read a separate '-1' as a flag of its own.
      const argv = [`--oauth-callback-port=${value}`];
      expect(() => parseServeArgs(argv, ENV)).toThrow(ArgsError);
      expect(() => parseServeArgs(argv, ENV)).toThrow(
        /^--oauth-callback-port must be a port number from 0 to 65535/,
      );
    },
  );

  it('names the environment variable when it is the one that is wrong', () => {
    expect(() => parseServeArgs([], { ...ENV, ATELIER_OAUTH_CALLBACK_PORT: 'auto' })).toThrow(
      "ATELIER_OAUTH_CALLBACK_PORT must be a port number from 0 to 65535 (default 1455), got 'auto'",
    );
  });

  it('refuses a flag without its value, an unknown flag and a bad --port', () => {
    expect(() => parseServeArgs(['--oauth-callback-port'], ENV)).toThrow(ArgsError);
    expect(() => parseServeArgs(['--oauth-port', '1'], ENV)).toThrow(/oauth-port/);
    expect(() => parseServeArgs(['--port', 'eighty'], ENV)).toThrow(/--port/);
    expect(() => parseServeArgs(['--simulator-speed', '-1'], ENV)).toThrow(/--simulator-speed/);
    expect(() => parseServeArgs(['--drain-seconds', '-1'], ENV)).toThrow(/--drain-seconds/);
    expect(() => parseServeArgs(['--drain-seconds', 'soon'], ENV)).toThrow(/--drain-seconds/);
  });

  it('answers help before checking anything else', () => {
    expect(parseServeArgs(['--help', '--port', 'x'], ENV)).toEqual({ help: true });
  });
});

describe('resolveCallbackPort', () => {
  it('accepts the whole port range', () => {
    expect(resolveCallbackPort('0', {})).toBe(0);
    expect(resolveCallbackPort('65535', {})).toBe(65535);
    expect(resolveCallbackPort(undefined, {})).toBeUndefined();
  });

  it('names the flag it was given as', () => {
    expect(() => resolveCallbackPort('x', {}, '--callback')).toThrow(/^--callback must/);
  });
});
