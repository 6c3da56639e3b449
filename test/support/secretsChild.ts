import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

export type ChildOutcome =
  | { ok: true; kind: string }
  | { ok: false; name: string; code: string | undefined; message: string };

const ENTRY = `
import { openSecretStore } from './src/gateway/secrets/index';
try {
  const store = await openSecretStore({ dataDir: process.argv[2], env: process.env });
  console.log(JSON.stringify({ ok: true, kind: store.kind }));
} catch (err) {
  console.log(JSON.stringify({ ok: false, name: err.name, code: err.code, message: err.message }));
}
`;

let bundled: Promise<string> | null = null;

/** openSecretStore bundled for plain Node; the native keyring binding is imported from the repo. */
function bundle(): Promise<string> {
  bundled ??= (async () => {
    const keyring = createRequire(path.resolve('package.json')).resolve('@napi-rs/keyring');
    const out = await build({
      stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: 'ts' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      plugins: [
        {
          name: 'native-keyring-from-repo',
          setup(b) {
            b.onResolve({ filter: /^@napi-rs\/keyring$/ }, () => ({
              path: keyring,
              external: true,
            }));
          },
        },
      ],
    });
    return out.outputFiles[0]!.text;
  })();
  return bundled;
}

/**
 * Runs openSecretStore in a fresh Node process, optionally on a D-Bus session bus of its own.
 * A fresh process is the only way to show "no keychain": libdbus reads the bus address once per
 * process, so the test process, already connected to the test keyring, cannot lose it.
 */
export async function openSecretStoreInChild(opts: {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** Run under `dbus-run-session`: a bus on which no keyring has been unlocked. */
  ownBus?: boolean;
}): Promise<ChildOutcome> {
  const code = await bundle();
  // The script comes on stdin, so there is no temp file to clean up.
  const node = [process.execPath, '--input-type=module', '-', opts.dataDir];
  const [command, ...args] = opts.ownBus ? ['dbus-run-session', '--', ...node] : node;
  const child = spawn(command!, args, { env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(code);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const line = stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) {
    throw new Error(`child exited ${status} without an outcome:\n${stdout}\n${stderr}`);
  }
  return JSON.parse(line) as ChildOutcome;
}
