import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  type CallToolResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearFaults,
  scriptFaults,
  startTestGateway,
  tempDir,
  usageRow,
  type TestGateway,
} from '../support/gateway';
import { rectMask, testPicture } from '../support/images';

const BIN = path.resolve('bin/atelier.mjs');

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

type Transport = 'http' | 'stdio';

interface Connected {
  client: Client;
  logs: LoggingMessageNotification['params'][];
  close(): Promise<void>;
}

/** The SDK's own client, on the gateway's /mcp or through `atelier mcp` on stdio. */
async function connect(transport: Transport, key = t.key): Promise<Connected> {
  const client = new Client({ name: 'atelier-test', version: '1.0.0' });
  const logs: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params);
  });
  if (transport === 'http') {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
  } else {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--url', t.url],
        env: { ...(process.env as Record<string, string>), ATELIER_KEY: key },
        stderr: 'pipe',
      }),
    );
  }
  return { client, logs, close: () => client.close() };
}

const textOf = (result: CallToolResult) =>
  result.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

/** The same body straight to /v1, to compare refusals word for word. */
async function v1Error(key: string, body: Record<string, unknown>) {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', ...body }),
  });
  return { status: res.status, ...((await res.json()) as { error: Record<string, unknown> }) };
}

describe.each<Transport>(['http', 'stdio'])('the MCP server over %s', (transport) => {
  let c: Connected;
  beforeAll(async () => {
    c = await connect(transport);
  });
  afterAll(async () => {
    await c.close();
  });

  it('lists the four tools with input schemas from the /v1 fields', async () => {
    const { tools } = await c.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'edit_image',
      'find_images',
      'generate_image',
      'get_spend',
    ]);
    const generate = tools.find((tool) => tool.name === 'generate_image')!;
    expect(generate.inputSchema.required).toEqual(['prompt']);
    const props = generate.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(JSON.stringify(props.size)).toContain('multiple of 16');
    expect(JSON.stringify(props.quality)).toContain('"high"');
  });

  it('generates n=2 at 1536x1024: progress for partial images, previews, links to the gallery, one usage row', async () => {
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = (await c.client.callTool(
      {
        name: 'generate_image',
        arguments: {
          prompt: `two harbours in fog (${transport})`,
          n: 2,
          size: '1536x1024',
          partial_images: 1,
        },
      },
      undefined,
      { onprogress: (p) => progress.push(p) },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    // One partial per image, then each image: four notifications of four.
    expect(progress.filter((p) => /^partial image/.test(p.message ?? ''))).toHaveLength(2);
    expect(progress.at(-1)).toMatchObject({ progress: 4, total: 4 });

    const previews = result.content.filter((part) => part.type === 'image');
    expect(previews).toHaveLength(2);
    for (const preview of previews) {
      const bytes = Buffer.from(preview.data, 'base64');
      expect(preview.mimeType).toBe('image/webp');
      expect(bytes.length).toBeLessThan(1_000_000);
      const meta = await sharp(bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1024, 683]);
    }
    const links = result.content.filter((part) => part.type === 'resource_link');
    expect(links).toHaveLength(2);
    const full = await c.client.readResource({ uri: links[0]!.uri });
    const blob = full.contents[0] as { blob: string; mimeType: string };
    const meta = await sharp(Buffer.from(blob.blob, 'base64')).metadata();
    expect([blob.mimeType, meta.width, meta.height]).toEqual(['image/png', 1536, 1024]);

    const structured = result.structuredContent as { request_id: string; cost_usd: number };
    const row = await usageRow(t, structured.request_id);
    const keyId = t.db
      .prepare('SELECT api_key_id FROM usage_records WHERE request_id = ?')
      .pluck()
      .get(structured.request_id);
    expect(row).toMatchObject({ status: 200, images: 2, n: 2, size: '1536x1024', stream: 1 });
    expect(keyId).toBe(t.db.prepare("SELECT id FROM api_keys WHERE name = 'test'").pluck().get());
    expect(structured.cost_usd).toBe(row.cost_micros / 1e6);
    expect(structured.cost_usd).toBeGreaterThan(0);
    expect(textOf(result)).toContain(`request ${structured.request_id}`);
  });

  it('edits a gallery image with a mask, and finds it in the gallery', async () => {
    const made = (await c.client.callTool({
      name: 'generate_image',
      arguments: { prompt: `a quiet street (${transport})`, size: '1024x1024', quality: 'low' },
    })) as CallToolResult;
    const source = (made.structuredContent as { images: Array<{ gallery_id: string }> }).images[0]!
      .gallery_id;
    expect(source).toMatch(/^img_/);
    const mask = await rectMask(1024, 1024, { left: 256, top: 256, width: 512, height: 512 });
    const edited = (await c.client.callTool({
      name: 'edit_image',
      arguments: {
        prompt: 'a red balloon over the street',
        image: { gallery_id: source },
        mask: { base64: mask.toString('base64') },
        size: '1024x1024',
        quality: 'low',
      },
    })) as CallToolResult;
    expect(edited.isError, textOf(edited)).toBeFalsy();
    const out = (edited.structuredContent as { images: Array<{ gallery_id: string }> }).images[0]!;
    const row = t.db
      .prepare('SELECT parent_id, mask, endpoint FROM images WHERE id = ?')
      .get(out.gallery_id) as Record<string, unknown>;
    expect(row.parent_id).toBe(source);
    expect(row.mask).not.toBeNull();
    expect(row.endpoint).toBe('/images/edits');

    const found = (await c.client.callTool({
      name: 'find_images',
      arguments: { query: 'balloon over the street' },
    })) as CallToolResult;
    const ids = (found.structuredContent as { images: Array<{ gallery_id: string }> }).images.map(
      (i) => i.gallery_id,
    );
    expect(ids).toContain(out.gallery_id);
    expect(ids).not.toContain(source); // its prompt has no balloon
  });

  it('cancels mid-run: the upstream call is aborted, the row says so, and the host is told what was billed', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 60_000 }]);
    const calls = t.gateway.simulator!.calls;
    const before = calls.length;
    const controller = new AbortController();
    const started = Date.now();
    const call = c.client.callTool(
      {
        name: 'generate_image',
        arguments: { prompt: `cancelled lighthouse (${transport})`, quality: 'low' },
      },
      undefined,
      { signal: controller.signal },
    );
    await expect.poll(() => calls.length).toBeGreaterThan(before);
    controller.abort('the user pressed stop');
    await expect(call).rejects.toThrow();
    await expect
      .poll(() => c.logs.find((l) => (l.data as { event?: string }).event === 'cancelled'), {
        timeout: 15_000,
      })
      .toBeTruthy();
    const log = c.logs.find((l) => (l.data as { event?: string }).event === 'cancelled')!.data as {
      request_id: string;
      billed_usd: number;
      message: string;
    };
    const row = await usageRow(t, log.request_id);
    expect(row).toMatchObject({
      status: 499,
      error_code: 'client_cancelled',
      images: 0,
      cost_micros: 0,
    });
    expect(log.billed_usd).toBe(0);
    expect(log.message).toMatch(/^Cancelled: request .* stopped upstream; billed \$0\.0000\.$/);
    // The simulator hears its caller close the connection: the upstream call really stopped.
    await expect.poll(() => calls[before]!.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(30_000);
    await clearFaults(t.simUrl);
  });

  it('refuses a bad size with the /v1 validator message, naming size', async () => {
    const result = (await c.client.callTool({
      name: 'generate_image',
      arguments: { prompt: 'a kettle', size: '1000x1000' },
    })) as CallToolResult;
    const direct = await v1Error(t.key, { prompt: 'a kettle', size: '1000x1000' });
    expect(direct.status).toBe(400);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(direct.error.message);
    expect((result.structuredContent as { error: { param: string } }).error.param).toBe('size');
  });
});

describe('MCP: keys and their limits', () => {
  it('refuses a key over its budget exactly as /v1 does', async () => {
    const broke = await t.newKey('mcp-broke', { budgetMicros: 1, budgetPeriod: 'total' });
    for (const transport of ['http', 'stdio'] as const) {
      const c = await connect(transport, broke.key);
      const result = (await c.client.callTool({
        name: 'generate_image',
        arguments: { prompt: 'an expensive castle' },
      })) as CallToolResult;
      const direct = await v1Error(broke.key, { prompt: 'an expensive castle' });
      expect(direct.status).toBe(429);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(direct.error.message);
      expect((result.structuredContent as { error: { code: string } }).error.code).toBe(
        'budget_exceeded',
      );

      const spend = (await c.client.callTool({
        name: 'get_spend',
        arguments: {},
      })) as CallToolResult;
      expect(spend.structuredContent).toMatchObject({
        spent_usd: 0,
        limits: { budget: { limit_usd: 0.000001, period: 'total' } },
      });
      await c.close();
    }
  });

  it('needs a key on /mcp (the /v1 401), and keeps each key to its own session and images', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_API_KEY');

    const mine = await connect('http');
    const other = await t.newKey('mcp-other');
    const theirs = await connect('http', other.key);
    const made = (await mine.client.callTool({
      name: 'generate_image',
      arguments: { prompt: 'a private picture', size: '1024x1024', quality: 'low' },
    })) as CallToolResult;
    const link = made.content.find((part) => part.type === 'resource_link')!;
    await expect(theirs.client.readResource({ uri: link.uri })).rejects.toThrow(
      /No image of this key/,
    );
    const found = (await theirs.client.callTool({
      name: 'find_images',
      arguments: {},
    })) as CallToolResult;
    expect((found.structuredContent as { images: unknown[] }).images).toEqual([]);
    await mine.close();
    await theirs.close();
  });

  it('edits a file the user named, and sends no file that is not an image', async () => {
    const c = await connect('http');
    const dir = tempDir();
    const picture = path.join(dir, 'street.png');
    fs.writeFileSync(picture, await testPicture(1024, 1024));
    const secret = path.join(dir, 'id_ed25519');
    fs.writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY-----\nnot an image\n');
    const calls = t.gateway.simulator!.calls.length;

    const refused = (await c.client.callTool({
      name: 'edit_image',
      arguments: { prompt: 'anything', image: { path: secret } },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('image.path is not a PNG, JPEG or WebP image.');
    const both = (await c.client.callTool({
      name: 'edit_image',
      arguments: { prompt: 'anything', image: { path: picture, base64: 'AAAA' } },
    })) as CallToolResult;
    expect(textOf(both)).toBe(
      'image must name exactly one of gallery_id, path or base64 (got path, base64).',
    );
    // A file in the gateway's own data folder (another key's gallery image, say) is not read,
    // nor is a link to it: gallery_id, with its per-key check, is the way to the gallery.
    const kept = path.join(t.dataDir, 'kept.png');
    fs.writeFileSync(kept, await testPicture(1024, 1024));
    const link = path.join(dir, 'kept-link.png');
    fs.symlinkSync(kept, link);
    for (const named of [kept, link]) {
      const inside = (await c.client.callTool({
        name: 'edit_image',
        arguments: { prompt: 'anything', image: { path: named } },
      })) as CallToolResult;
      expect(inside.isError).toBe(true);
      expect(textOf(inside)).toBe(
        `image.path: '${named}' is in Atelier's own data folder; name a gallery image by gallery_id.`,
      );
    }
    expect(t.gateway.simulator!.calls.length).toBe(calls);

    const edited = (await c.client.callTool({
      name: 'edit_image',
      arguments: {
        prompt: 'a lantern',
        image: { path: picture },
        size: '1024x1024',
        quality: 'low',
      },
    })) as CallToolResult;
    expect(edited.isError, textOf(edited)).toBeFalsy();
    expect(t.gateway.simulator!.calls.at(-1)).toMatchObject({
      kind: expect.any(String),
      imageCount: 1,
    });
    await c.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('guards /mcp by Host and Origin like /v1', async () => {
    const refusal = (headers: Record<string, string>) =>
      new Promise<{ status: number; code: string }>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port: t.gateway.port, path: '/mcp', method: 'POST', headers },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () =>
              resolve({
                status: res.statusCode!,
                code: (JSON.parse(body) as { error: { code: string } }).error.code,
              }),
            );
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
    const own = `127.0.0.1:${t.gateway.port}`;
    const auth = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' };
    expect(await refusal({ ...auth, host: 'evil.example:80' })).toEqual({
      status: 403,
      code: 'forbidden_host',
    });
    expect(await refusal({ ...auth, host: own, origin: 'https://evil.example' })).toEqual({
      status: 403,
      code: 'forbidden_origin',
    });
  });

  it('`atelier mcp` says how to start a gateway when none answers', async () => {
    const { spawnSync } = await import('node:child_process');
    const dir = tempDir();
    const run = spawnSync(
      process.execPath,
      [BIN, 'mcp', '--url', 'http://127.0.0.1:9', '--data-dir', dir],
      {
        encoding: 'utf8',
        env: { ...process.env, ATELIER_KEY: 'atl_whatever' },
      },
    );
    fs.rmSync(dir, { recursive: true, force: true });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /no Atelier gateway answers at http:\/\/127\.0\.0\.1:9 .*npx atelier serve/,
    );
  });
});
