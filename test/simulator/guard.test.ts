import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_HEADER, startSimulator, type Simulator } from '../../src/simulator';
import { API_KEY, postJson, simControl } from './helpers';

/** The simulator is not an open server: Host, Origin and a per-run credential guard it. */

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
});
afterAll(async () => {
  await sim.close();
});

function raw(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: sim.port, path, method, headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('simulator guards', () => {
  it('gives each run its own random control credential', async () => {
    const other = await startSimulator({ speed: 0 });
    try {
      expect(sim.controlToken.length).toBeGreaterThanOrEqual(32);
      expect(other.controlToken).not.toBe(sim.controlToken);
    } finally {
      await other.close();
    }
  });

  it('refuses the control routes without the credential, and with a wrong one', async () => {
    const attempts: Array<Record<string, string>> = [{}, { [CONTROL_HEADER]: 'guess' }];
    for (const headers of attempts) {
      expect((await fetch(`${sim.url}/__sim/calls`, { headers })).status).toBe(401);
      const faults = await postJson(
        `${sim.url}/__sim/faults`,
        { faults: [{ kind: 'http_error', status: 500 }] },
        headers,
      );
      expect(faults.status).toBe(401);
    }
    expect(sim.faults.pending).toEqual([]);
    expect((await fetch(`${sim.url}/__sim/calls`, { headers: simControl(sim) })).status).toBe(200);
  });

  it("refuses a web page's text/plain POST to the faults route (it carries an Origin)", async () => {
    const res = await raw(
      '/__sim/faults',
      {
        host: `127.0.0.1:${sim.port}`,
        origin: 'https://evil.example',
        'content-type': 'text/plain',
      },
      'POST',
      JSON.stringify({ faults: [{ kind: 'http_error', status: 500 }] }),
    );
    expect(res.status).toBe(403);
    expect(sim.faults.pending).toEqual([]);
  });

  it('refuses a rebound Host, even with the credential', async () => {
    const res = await raw('/__sim/calls', {
      host: `rebound.example:${sim.port}`,
      ...simControl(sim),
    });
    expect(res.status).toBe(403);
    const images = await raw(
      '/v1/images/generations',
      {
        host: 'rebound.example',
        authorization: `Bearer ${API_KEY}`,
        'content-type': 'application/json',
      },
      'POST',
      JSON.stringify({ model: 'image-model-2', prompt: 'p' }),
    );
    expect(images.status).toBe(403);
  });

  it('keeps only the latest calls in its log', async () => {
    const total = 520;
    for (let i = 0; i < total; i += 40) {
      await Promise.all(
        Array.from({ length: 40 }, () =>
          fetch(`${sim.url}/v1/models`, { headers: { authorization: `Bearer ${API_KEY}` } }),
        ),
      );
    }
    expect(sim.calls.length).toBe(500);
  });
});
