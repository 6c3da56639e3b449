import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../scripts/check-node.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the Node.js version check (npm install, npm start, atelier)', () => {
  it('accepts 22.14 and later, and refuses older versions with what to do', () => {
    for (const ok of ['22.14.0', '22.20.1', '24.21.0', 'v26.10.0']) {
      expect(nodeVersionProblem(ok)).toBeNull();
    }
    for (const old of ['20.20.2', '22.13.9', '18.0.0']) {
      const message = nodeVersionProblem(old);
      expect(message).toContain(`this is Node.js ${old}`);
      expect(message).toContain('22.14 or later');
      expect(message).toContain('scripts/ensure-node.sh');
    }
  });

  it('lets the current Node through the real command', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/check-node.mjs')], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });

  // Debian's own Node 20, where the machine has it (these CI machines do): the message, not a crash.
  const debianNode = '/usr/bin/node';
  const debianVersion = spawnSync(debianNode, ['-p', 'process.versions.node'], {
    encoding: 'utf8',
  });
  const old =
    debianVersion.status === 0 && nodeVersionProblem(debianVersion.stdout.trim()) !== null;
  it.runIf(old)('stops the atelier command on an older Node with the message', () => {
    const run = spawnSync(debianNode, [path.join(ROOT, 'bin/atelier.mjs'), 'keys', 'list'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^Atelier needs Node\.js 22\.14 or later/);
  });
});
