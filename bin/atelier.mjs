#!/usr/bin/env node
// The `atelier` command. The CLI is bundled from TypeScript by `npm install` (the prepare script),
// so this runs on plain Node with no loader. `npx atelier` finds the project's own Node first;
// started on an older Node some other way, it runs itself again on the project's.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { announceNode, runOnNewEnoughNode } from '../scripts/check-node.mjs';

const args = process.argv.slice(2);
if (runOnNewEnoughNode('atelier', fileURLToPath(import.meta.url), args)) {
  // Long-running commands say which Node they run on (stderr: stdout may be a protocol or a key).
  if (args[0] === 'serve' || args[0] === 'mcp') announceNode('atelier');
  const bundle = fileURLToPath(new URL('../out/node/cli.mjs', import.meta.url));
  if (!existsSync(bundle)) {
    console.error(
      'atelier: the CLI is not built yet. Run `npm install` (or `npm run build:node`) in the project folder.',
    );
    process.exit(1);
  }
  const { main } = await import(pathToFileURL(bundle).href);
  process.exitCode = await main(args);
}
