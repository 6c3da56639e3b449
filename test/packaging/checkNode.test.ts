import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeNode,
  nodeVersionProblem,
  projectNode,
  PROJECT_ROOT,
} from '../../scripts/check-node.mjs';

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
      expect(message).toContain('npm install');
    }
  });

  it('lets the current Node through the real command', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/check-node.mjs')], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });

  it("finds the project's own Node (the `node` dev dependency) and says which Node runs", () => {
    expect(PROJECT_ROOT).toBe(ROOT);
    const own = projectNode();
    expect(own).toBe(path.join(ROOT, 'node_modules', 'node', 'bin', 'node'));
    const version = spawnSync(own!, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    expect(nodeVersionProblem(version.stdout.trim())).toBeNull();

    const ownLine = describeNode({
      version: '24.21.0',
      execPath: own!,
      machineVersion: () => '20.20.2',
    });
    expect(ownLine).toBe(
      "Node.js 24.21.0, the project's own (node_modules/node; this machine's node is 20.20.2, older than 22.14)",
    );
    expect(describeNode({ version: '24.1.0', execPath: '/opt/node/bin/node' })).toBe(
      'Node.js 24.1.0 (/opt/node/bin/node)',
    );
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-nonode-'));
    expect(projectNode(empty)).toBeNull();
    fs.rmSync(empty, { recursive: true });
  });

  // Debian's own Node 20, where the machine has it (these CI machines do): the command runs again
  // on the project's Node and says so, instead of crashing in a native module.
  const debianNode = '/usr/bin/node';
  const debianVersion = spawnSync(debianNode, ['-p', 'process.versions.node'], {
    encoding: 'utf8',
  });
  const old =
    debianVersion.status === 0 && nodeVersionProblem(debianVersion.stdout.trim()) !== null;
  it.runIf(old)("runs the atelier command on the project's Node when started on an old one", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-oldnode-'));
    try {
      const run = spawnSync(
        debianNode,
        [path.join(ROOT, 'bin/atelier.mjs'), 'keys', 'list', '--data-dir', dataDir],
        { encoding: 'utf8' },
      );
      expect(run.stderr).toMatch(
        new RegExp(
          `^atelier: this Node\\.js ${debianVersion.stdout.trim().replaceAll('.', '\\.')} is older than 22\\.14; running on the project's own Node\\.js`,
        ),
      );
      expect(run.status).toBe(0);
      // It opened the database (better-sqlite3, N-API 10): the project's Node loaded it.
      expect(fs.existsSync(path.join(dataDir, 'atelier.db'))).toBe(true);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
