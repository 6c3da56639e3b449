import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { launchBrowser } from './browser';
import { watchV1Replies } from './openapiCheck';
import { checkedFetch, checkRepliesOf } from '../../support/openapiReplies';
import { startStudioServer, tempDir, type StudioServer } from './studioServer';
import { watchTimeline, type RequestTimeline } from './timeline';

export const ARTIFACTS = path.resolve(import.meta.dirname, '../../../test-results/e2e');

/** Everything a test file drives: the server, its browser, the logged-in page. */
export interface Studio {
  server: StudioServer;
  context: BrowserContext;
  page: Page;
  /** Console errors of the page are test failures, except messages matching these (per test). */
  allowConsole(pattern: RegExp): void;
  /** Saves a full-page screenshot under test-results/e2e/screens/<name>.png. */
  screenshot(name: string): Promise<void>;
  /** Calls the admin API as the studio does (session cookie + x-atelier-studio header). */
  admin<T = unknown>(method: string, apiPath: string, body?: unknown): Promise<T>;
  /** Bytes the admin API serves (image files, masks), with the studio header. */
  adminBytes(apiPath: string): Promise<Buffer>;
  /** Calls /v1 with an API key, as another app would. */
  v1(
    apiPath: string,
    key: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: unknown; requestId: string | null }>;
}

export interface StudioOptions {
  /** Prepares the data folder before the server starts (e.g. seeds 5,000 gallery rows). */
  seed?: (dataDir: string) => Promise<void> | void;
  simulatorSpeed?: number;
  /** Extra environment for `atelier serve` (e.g. ATELIER_SECRET_STORE). */
  env?: Record<string, string>;
}

/**
 * One server and one browser (with its own user-data folder) per test file, logged in through
 * the link `atelier serve` printed. Tests in a file run in order and share them, like a person's
 * session would; files never share anything.
 */
export function useStudio(options: StudioOptions = {}): Studio {
  let server: StudioServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  const temps: string[] = [];
  let allowed: RegExp[] = [];
  const errors: string[] = [];
  let v1Problems: (() => Promise<string[]>) | undefined;
  let timeline: RequestTimeline | undefined;

  test.describe.configure({ mode: 'serial' });

  test.beforeAll(async () => {
    let dataDir: string | undefined;
    if (options.seed) {
      dataDir = tempDir('data');
      temps.push(dataDir);
      await options.seed(dataDir);
    }
    server = await startStudioServer({
      dataDir,
      simulatorSpeed: options.simulatorSpeed,
      env: options.env,
    });
    temps.push(server.dataDir);
    const browser = await launchBrowser();
    context = browser.context;
    temps.push(browser.profileDir);
    v1Problems = watchV1Replies(context, new URL(server.url).origin);
    timeline = watchTimeline(context, new URL(server.url).origin);
    checkRepliesOf(server.url);
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    // The login link sets the session cookie and redirects to the studio.
    await page.goto(server.loginUrl);
    await expect(page.locator('.app')).toHaveAttribute('data-session', 'ok');
    await expect(page.locator('.app')).toHaveAttribute('data-ready', 'true');
    expect(errors, 'console errors while logging in').toEqual([]);
  });

  test.beforeEach(() => {
    allowed = [];
    errors.length = 0;
    timeline?.reset();
  });

  test.afterEach(async () => {
    const testInfo = test.info();
    const unexpected = errors.filter((e) => !allowed.some((p) => p.test(e)));
    if (testInfo.status !== testInfo.expectedStatus && server) {
      await testInfo.attach('server log', { body: server.log(), contentType: 'text/plain' });
      if (timeline) {
        await testInfo.attach('requests', { body: timeline.text(), contentType: 'text/plain' });
      }
      if (context) {
        await testInfo.attach('gateway state', {
          body: await gatewayState(context, server.url),
          contentType: 'text/plain',
        });
      }
      if (page) {
        await testInfo.attach('page', {
          body: await page.screenshot({ fullPage: true }),
          contentType: 'image/png',
        });
      }
    }
    expect(unexpected, 'console errors on the page').toEqual([]);
    expect(await v1Problems?.(), '/v1 replies the OpenAPI document does not describe').toEqual([]);
  });

  test.afterAll(async () => {
    await context?.close();
    await server?.stop();
    for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
  });

  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not ready: use it inside a test`);
    return value;
  };

  return {
    get server() {
      return need(server, 'the server');
    },
    get context() {
      return need(context, 'the browser');
    },
    get page() {
      return need(page, 'the page');
    },
    allowConsole(pattern) {
      allowed.push(pattern);
    },
    async screenshot(name) {
      const dir = path.join(ARTIFACTS, 'screens');
      fs.mkdirSync(dir, { recursive: true });
      const p = need(page, 'the page');
      // The whole page at once: a viewport as tall as the document, so sticky parts (the
      // sidebar) sit where a person sees them rather than where a scrolled capture leaves them.
      const size = p.viewportSize() ?? { width: 1440, height: 900 };
      const height = await p.evaluate(() => document.documentElement.scrollHeight);
      await p.setViewportSize({
        width: size.width,
        height: Math.min(Math.max(size.height, height), 6000),
      });
      await p.screenshot({ path: path.join(dir, `${name}.png`) });
      await p.setViewportSize(size);
    },
    async admin<T>(method: string, apiPath: string, body?: unknown): Promise<T> {
      const response = await need(context, 'the browser').request.fetch(
        `${need(server, 'the server').url}${apiPath}`,
        {
          method,
          headers: { 'x-atelier-studio': '1' },
          ...(body === undefined ? {} : { data: body }),
        },
      );
      if (!response.ok()) {
        throw new Error(`${method} ${apiPath}: ${response.status()} ${await response.text()}`);
      }
      return (await response.json()) as T;
    },
    async adminBytes(apiPath) {
      const response = await need(context, 'the browser').request.get(
        `${need(server, 'the server').url}${apiPath}`,
        { headers: { 'x-atelier-studio': '1' } },
      );
      if (!response.ok()) throw new Error(`GET ${apiPath}: ${response.status()}`);
      return response.body();
    },
    async v1(apiPath, key, body, headers = {}) {
      const response = await checkedFetch(`${need(server, 'the server').url}/v1${apiPath}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          ...headers,
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return {
        status: response.status,
        json: await response.json().catch(() => null),
        requestId: response.headers.get('x-request-id'),
      };
    },
  };
}

/**
 * What the gateway knows when a test failed, read through its admin API: the latest usage rows,
 * the studio's runs in flight and the accounts with their state. Each read is bounded, and a read
 * that fails says so instead of hiding the test's own failure.
 */
async function gatewayState(context: BrowserContext, url: string): Promise<string> {
  const reads = ['/api/admin/usage?limit=10', '/api/admin/runs/live', '/api/admin/accounts'];
  const parts = await Promise.all(
    reads.map(async (apiPath) => {
      try {
        const response = await context.request.get(`${url}${apiPath}`, {
          headers: { 'x-atelier-studio': '1' },
          timeout: 5_000,
        });
        return `GET ${apiPath}: ${response.status()}\n${await response.text()}`;
      } catch (error) {
        return `GET ${apiPath}: not read (${String(error)})`;
      }
    }),
  );
  return parts.join('\n\n');
}
