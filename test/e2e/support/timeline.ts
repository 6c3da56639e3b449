import type { BrowserContext, Request } from '@playwright/test';

/**
 * What the pages asked of the gateway during one test, with times: each request's start, its
 * response headers and its end (finished, or failed and why). Kept in memory and attached to a
 * failing test, so a wait that timed out says where it stood: never sent, sent and never
 * answered, answered and never finished. Costs a few objects per request; nothing is recorded
 * for other origins.
 */
export interface RequestTimeline {
  /** Starts a new test's record. */
  reset(): void;
  /** One line per event, `+<ms since reset> <METHOD> <path>: <what>`. */
  text(): string;
}

export function watchTimeline(context: BrowserContext, origin: string): RequestTimeline {
  let start = Date.now();
  let lines: string[] = [];
  const note = (request: Request, what: string) => {
    const url = new URL(request.url());
    if (url.origin !== origin) return;
    // An object URL (a streamed preview or result the page shows) is named as it is.
    const target = url.protocol === 'blob:' ? request.url() : `${url.pathname}${url.search}`;
    lines.push(`+${Date.now() - start} ${request.method()} ${target}: ${what}`);
  };
  context.on('request', (request) => note(request, 'sent'));
  context.on('response', (response) =>
    note(
      response.request(),
      `answered ${response.status()} ${response.headers()['content-type'] ?? ''}`,
    ),
  );
  context.on('requestfinished', (request) => note(request, 'finished'));
  context.on('requestfailed', (request) =>
    note(request, `failed (${request.failure()?.errorText ?? 'no reason given'})`),
  );
  return {
    reset() {
      start = Date.now();
      lines = [];
    },
    text() {
      return lines.length ? lines.join('\n') : '(no request to the gateway)';
    },
  };
}
