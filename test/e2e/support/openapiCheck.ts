import type { BrowserContext, Response } from '@playwright/test';
import { replyProblem } from '../../support/openapiReplies';

/**
 * Every /v1 reply the studio's pages receive in a test, held against /v1/openapi.json the way the
 * gateway suites hold theirs (test/support/openapiReplies.ts): a status the document does not
 * list for the operation, or a JSON body that does not match its schema, is a problem the test
 * fails on. Streams and image bytes are checked by status only; nothing else of the page is read.
 */
export function watchV1Replies(context: BrowserContext, origin: string): () => Promise<string[]> {
  const pending: Array<Promise<string | null>> = [];
  const inspect = async (response: Response): Promise<string | null> => {
    const url = new URL(response.url());
    if (url.origin !== origin || !url.pathname.startsWith('/v1/')) return null;
    const method = response.request().method();
    const contentType = response.headers()['content-type'] ?? '';
    if (!contentType.includes('application/json') || method === 'HEAD')
      return replyProblem(method, url.pathname, response.status(), contentType, undefined);
    // A page that navigated away may no longer hold the body: nothing to check then.
    const body = await response.json().catch(() => undefined);
    if (body === undefined) return null;
    return replyProblem(method, url.pathname, response.status(), contentType, body);
  };
  context.on('response', (response) => {
    pending.push(inspect(response).catch((error: unknown) => `checking a reply: ${String(error)}`));
  });
  /** The problems seen since the last call (waits for the checks still running). */
  return async () => {
    const seen = await Promise.all(pending.splice(0));
    return seen.filter((problem): problem is string => problem !== null);
  };
}
