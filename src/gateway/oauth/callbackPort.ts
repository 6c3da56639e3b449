import { DEFAULT_CALLBACK_PORT } from './constants';

/** Where `atelier serve` and the desktop app read the callback port when no flag gives one. */
export const CALLBACK_PORT_ENV = 'ATELIER_OAUTH_CALLBACK_PORT';

/**
 * The loopback port the studio's OAuth sign-ins wait on: the flag, else the environment, else
 * undefined (the gateway's default, 1455). Decimal digits only: `Number()` would take '', ' 80',
 * '1e3' and '0x5bf', each a surprise in a port. Throws with a message naming where it came from.
 */
export function resolveCallbackPort(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  flagName = '--oauth-callback-port',
): number | undefined {
  // An empty variable counts as unset, as ATELIER_DATA_DIR does.
  const [value, source] =
    flag !== undefined
      ? [flag, flagName]
      : [env[CALLBACK_PORT_ENV] || undefined, CALLBACK_PORT_ENV];
  if (value === undefined) return undefined;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new RangeError(
      `${source} must be a port number from 0 to 65535 (default ${DEFAULT_CALLBACK_PORT}), got '${value}'`,
    );
  }
  return port;
}
