// Refuses to go on under a Node.js older than Atelier needs, with a message a person can act on.
// Runs first in `npm install` (preinstall), `npm start` and the `atelier` command. Written for any
// Node that can load an ES module, so the old one can read it and say why it is too old.
//
// Why 22.14: better-sqlite3 13's prebuilt binaries use N-API 10 (Node 22.14+; on Node 20 they
// crash on first use), and Electron 45 itself declares Node >= 22.12.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

export const MINIMUM = { major: 22, minor: 14 };
export const RECOMMENDED = '24 LTS';

/** A message saying what to do, or null when `version` (like "20.20.2") is new enough. */
export function nodeVersionProblem(version) {
  const [major, minor] = String(version).replace(/^v/, '').split('.').map(Number);
  if (major > MINIMUM.major || (major === MINIMUM.major && minor >= MINIMUM.minor)) return null;
  return [
    `Atelier needs Node.js ${MINIMUM.major}.${MINIMUM.minor} or later (${RECOMMENDED} recommended); this is Node.js ${version}.`,
    'Check with `node --version`. Install Node.js 24 from nodejs.org or your version manager',
    '(nvm install 24, fnm use 24, volta install node@24), or on Linux and macOS let the project',
    'fetch the official binary from the npm registry into .tools/ and use it for this shell:',
    '  export PATH="$(bash scripts/ensure-node.sh):$PATH"',
    'then run the command again.',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const problem = nodeVersionProblem(process.versions.node);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
