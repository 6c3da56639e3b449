// Which Node.js Atelier runs on. The project brings its own Node 24 (the registry's `node` package,
// a dev dependency: its binary is node_modules/.bin/node, which npm scripts and `npx` find before
// the machine's), so `npm install && npm start` works where the machine's Node is older.
// Here: the version rule, the project's own binary, one line saying which Node runs, and a
// re-launch on the project's Node for the rare entry that was started on an old one directly
// (`node bin/atelier.mjs`, an absolute path to the `atelier` bin in an agent host's config).
// Written for any Node that can load an ES module, so an old one can read it.
//
// Why 22.14: better-sqlite3 13's prebuilt binaries use N-API 10 (Node 22.14+; on Node 20 they
// crash on first use), and Electron 45 itself declares Node >= 22.12.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const MINIMUM = { major: 22, minor: 14 };
export const RECOMMENDED = '24 LTS';
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Set for child processes once the Node in use has been announced, so it is said once. */
const ANNOUNCED = 'ATELIER_NODE_ANNOUNCED';

/** A message saying what to do, or null when `version` (like "20.20.2") is new enough. */
export function nodeVersionProblem(version) {
  const [major, minor] = String(version).replace(/^v/, '').split('.').map(Number);
  if (major > MINIMUM.major || (major === MINIMUM.major && minor >= MINIMUM.minor)) return null;
  return [
    `Atelier needs Node.js ${MINIMUM.major}.${MINIMUM.minor} or later (${RECOMMENDED} recommended); this is Node.js ${version}.`,
    'The project brings its own Node 24 as a dev dependency (the npm package `node`), but it is',
    'not installed here: run `npm install` in the project folder (it downloads it from the npm',
    'registry), or install Node.js 24 from nodejs.org or your version manager',
    '(nvm install 24, fnm use 24, volta install node@24), then run the command again.',
  ].join('\n');
}

/** The project's own Node binary (installed by the `node` dev dependency), or null. */
export function projectNode(root = PROJECT_ROOT, exists = existsSync) {
  const binary = join(
    root,
    'node_modules',
    'node',
    'bin',
    process.platform === 'win32' ? 'node.exe' : 'node',
  );
  return exists(binary) ? binary : null;
}

function isInside(file, folder) {
  const rel = relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
}

/** The version of the first `node` on PATH outside the project's node_modules, or null. */
export function machineNodeVersion(root = PROJECT_ROOT, env = process.env) {
  const own = join(root, 'node_modules');
  const names = process.platform === 'win32' ? ['node.exe'] : ['node'];
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (!folder || isInside(resolve(folder), own) || resolve(folder) === own) continue;
    for (const name of names) {
      const candidate = join(folder, name);
      if (!existsSync(candidate)) continue;
      const run = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
      if (run.status === 0) return run.stdout.trim();
    }
  }
  return null;
}

/**
 * One line saying which Node runs: the version, and whether it is the project's own (then also
 * the machine's, so a person sees why).
 */
export function describeNode({
  version = process.versions.node,
  execPath = process.execPath,
  root = PROJECT_ROOT,
  machineVersion = () => machineNodeVersion(root),
} = {}) {
  let real = execPath;
  try {
    real = realpathSync(execPath);
  } catch {
    // keep the path as given
  }
  if (!isInside(real, join(root, 'node_modules'))) return `Node.js ${version} (${execPath})`;
  const machine = machineVersion();
  const why = machine
    ? nodeVersionProblem(machine)
      ? `; this machine's node is ${machine}, older than ${MINIMUM.major}.${MINIMUM.minor}`
      : `; this machine's node is ${machine}`
    : '; this machine has no other node on PATH';
  return `Node.js ${version}, the project's own (node_modules/node${why})`;
}

/** Prints which Node runs, once per command tree (child processes inherit the mark). */
export function announceNode(label, print = (line) => console.error(line)) {
  if (process.env[ANNOUNCED] === '1') return;
  process.env[ANNOUNCED] = '1';
  print(`${label}: running on ${describeNode()}`);
}

/**
 * Makes sure this process may go on. On a new enough Node, returns true. On an older one, runs
 * `script` again on the project's own Node when it is installed (saying so; the child's exit
 * becomes ours, and signals are passed on once) and returns false; without one, prints what to do
 * and exits with status 1.
 */
export function runOnNewEnoughNode(label, script, args) {
  if (nodeVersionProblem(process.versions.node) === null) return true;
  const own = projectNode();
  if (!own) {
    console.error(nodeVersionProblem(process.versions.node));
    process.exit(1);
  }
  console.error(
    `${label}: this Node.js ${process.versions.node} is older than ${MINIMUM.major}.${MINIMUM.minor}; ` +
      `running on the project's own Node.js (${own})`,
  );
  const child = spawn(own, [script, ...args], {
    stdio: 'inherit',
    env: { ...process.env, [ANNOUNCED]: '1' },
  });
  // A terminal's Ctrl+C reaches the whole foreground group, the child too: ignore it here and let
  // the child decide; a signal sent to this process alone is passed on.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of signals) process.on(signal, signal === 'SIGINT' ? () => {} : forward);
  child.on('error', (error) => {
    console.error(`${label}: could not run ${own}: ${error.message}`);
    process.exit(1);
  });
  child.on('close', (code, signal) => {
    if (signal) {
      for (const s of signals) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
  return false;
}

// `npm install` (preinstall): npm 7+ runs the root's own preinstall after the dependencies are in
// place, so node_modules/.bin/node is the project's Node by now; this refuses only when it is not.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const problem = nodeVersionProblem(process.versions.node);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
