#!/usr/bin/env node
// The `atelier` command. The CLI is bundled from TypeScript by `npm install` (the prepare script),
// so this runs on plain Node with no loader.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeVersionProblem } from '../scripts/check-node.mjs';

const tooOld = nodeVersionProblem(process.versions.node);
if (tooOld) {
  console.error(tooOld);
  process.exit(1);
}

const bundle = fileURLToPath(new URL('../out/node/cli.mjs', import.meta.url));
if (!existsSync(bundle)) {
  console.error(
    'atelier: the CLI is not built yet. Run `npm install` (or `npm run build:node`) in the project folder.',
  );
  process.exit(1);
}
const { main } = await import(pathToFileURL(bundle).href);
process.exitCode = await main(process.argv.slice(2));
