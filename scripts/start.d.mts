// Types for scripts/start.mjs (used by scripts/test-desktop.mjs and the tests).
export function findElectronBinary(
  root: string,
  env?: Record<string, string | undefined>,
  exists?: (path: string) => boolean,
  read?: (path: string, encoding: 'utf8') => string,
): string | undefined;
export function decideLaunch(where: {
  platform: string;
  env: Record<string, string | undefined>;
  uid?: number;
  binary?: string;
}): { desktop: true; binary: string } | { desktop: false; reasons: string[] };
