import { execFileSync } from 'node:child_process';

/** The CLI tests run the bundled `atelier` command, exactly as `npx atelier` would. */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build-node.mjs'], { stdio: 'inherit' });
}
