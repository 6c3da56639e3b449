// Types for scripts/test-desktop.mjs.
export function desktopTestPlan(where: {
  platform: string;
  env: Record<string, string | undefined>;
  binary: string | undefined;
  hasXvfbRun: boolean;
}): { run: true; wrapper: string[] } | { run: false; why: string };
