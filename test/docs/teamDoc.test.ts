import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/gateway';
import { haproxyBinary, haproxyConfig } from '../support/haproxy';

const doc = fs.readFileSync('docs/team.md', 'utf8');

describe('docs/team.md', () => {
  it('shows the HAProxy configuration the tests run, and HAProxy accepts it', () => {
    const shown = /```haproxy\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(shown).toBe(
      haproxyConfig({
        port: 8080,
        socket: '/run/haproxy/admin.sock',
        backends: [8801, 8802, 8803].map((port) => ({ port })),
        checkIntervalMs: 1_000,
      }),
    );
    const binary = haproxyBinary();
    if (!binary) throw new Error('HAProxy is not installed (Debian: apt-get install haproxy)');
    const dir = tempDir();
    try {
      const file = path.join(dir, 'haproxy.cfg');
      fs.writeFileSync(file, shown ?? '');
      // -c: checks the configuration and exits; status 0 when it is valid.
      expect(execFileSync(binary, ['-c', '-f', file], { encoding: 'utf8' })).toMatch(
        /Configuration file is valid/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the commands the CLI has', () => {
    expect(doc).toContain('npx atelier secrets generate-key');
    expect(doc).toContain('npx atelier secrets rotate-key');
    expect(doc).toContain('npm run team:demo');
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['team:demo']).toBe('node scripts/team-demo.mjs');
  });
});
