// `npm run screenshots`: builds the studio and runs test/e2e/docs-screenshots.spec.ts, which writes
// the "after" screenshots of docs/screenshots.md into docs/screenshots/after/ (both themes).
// `npm run screenshots -- before` writes the same set into before/ (for a studio checked out at
// an older commit).
import { spawnSync } from 'node:child_process';

const set = process.argv[2] ?? 'after';
if (!/^[a-z-]+$/.test(set)) {
  console.error(`screenshots: the set is a plain folder name (after, before), not '${set}'`);
  process.exit(2);
}
const run = spawnSync(
  process.execPath,
  ['node_modules/@playwright/test/cli.js', 'test', 'test/e2e/docs-screenshots.spec.ts'],
  { stdio: 'inherit', env: { ...process.env, ATELIER_DOCS_SCREENSHOTS: set } },
);
process.exit(run.status ?? 1);
