import { formatDuration } from './format';
import type { GatewayErrorInfo } from './api/errors';
import type { ErrorLimit } from '../../shared/errors';

/**
 * One plain account of an error: a title for its class, the message with machine times made
 * local ("resets at 14:09, in 12 min"), one line of advice that agrees with it, and whether a
 * Retry can help now, later (after `retryAt`) or not at all. Pure, so tests pin every class.
 */
export interface ErrorView {
  kind:
    | 'session'
    | 'refused'
    | 'invalid'
    | 'limit'
    | 'budget'
    | 'rate'
    | 'daily'
    | 'concurrency'
    | 'busy'
    | 'no_account'
    | 'partial'
    | 'upstream'
    | 'offline'
    | 'other';
  title: string;
  message: string;
  advice: string | null;
  retry: 'now' | 'later' | 'never';
  /** When a Retry can work again (a usage window's reset), ms since the epoch. */
  retryAt: number | null;
  /** The page where the person can do what helps (raise a budget or a limit). */
  action: { label: string; path: string } | null;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * A reset in words, local: "14:09 (in 40 s)" today, "tomorrow, 01:00", "1 December" (a local
 * midnight needs no time).
 */
export function resetWords(ms: number, now: number): string {
  const d = new Date(ms);
  const n = new Date(now);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (d.toDateString() === n.toDateString()) {
    return ms > now ? `${time} (in ${formatDuration(ms - now)})` : time;
  }
  const tomorrow = new Date(n.getFullYear(), n.getMonth(), n.getDate() + 1);
  const day =
    d.toDateString() === tomorrow.toDateString()
      ? 'tomorrow'
      : `${d.getDate()} ${MONTHS[d.getMonth()] ?? ''}`.trim();
  return d.getHours() === 0 && d.getMinutes() === 0 ? day : `${day}, ${time}`;
}

/** Dollars as a person reads a budget: cents from $0.10 up, four decimals below. */
export function budgetUsd(dollars: number): string {
  return dollars >= 0.1 || dollars === 0 ? `$${dollars.toFixed(2)}` : `$${dollars.toFixed(4)}`;
}

const BUDGET_NAMES: Record<string, [string, string]> = {
  day: ['Today’s studio budget', 'today’s studio budget'],
  month: ['This month’s studio budget', 'this month’s studio budget'],
  total: ['The studio budget', 'the studio budget'],
};

const SETTINGS = { label: 'Open Settings', path: '/settings' };
const KEYS = { label: 'Open Keys', path: '/keys' };

/**
 * A key limit's refusal by its `error.limit`: what is used of what, and the one action that helps
 * (the studio's requests are made as its Studio key, whose budget Settings sets). The gateway's
 * own sentence (dollars to four places, UTC times) is left out for these plain words.
 */
function keyLimitView(code: string, limit: ErrorLimit | null, now: number): ErrorView | null {
  const resetsAt = limit?.resets_at ? Date.parse(limit.resets_at) : NaN;
  const reset = Number.isNaN(resetsAt) ? null : resetsAt;
  const base = { message: '', retryAt: null };
  if (code === 'budget_exceeded') {
    const [Name, name] = BUDGET_NAMES[limit?.period ?? 'month'] ?? BUDGET_NAMES.month!;
    const usedUp = !limit || limit.used >= limit.limit;
    const amounts = limit ? `: ${budgetUsd(limit.used)} of ${budgetUsd(limit.limit)}` : '';
    const wait = reset !== null ? `, or wait until ${resetWords(reset, now)}` : '';
    return {
      ...base,
      kind: 'budget',
      title: usedUp
        ? `${Name} is used${amounts}.`
        : `This request would pass ${name}${amounts} used, this one about ${budgetUsd(limit.requested ?? 0)}.`,
      advice: usedUp
        ? `Raise it in Settings${wait}.`
        : `Ask for fewer or cheaper images, raise it in Settings${wait}.`,
      retry: 'never',
      action: SETTINGS,
    };
  }
  if (code === 'rate_limit_exceeded' && limit?.name === 'requests_per_minute') {
    const when = reset !== null ? resetWords(reset, now) : 'a minute';
    return {
      ...base,
      kind: 'rate',
      title: `Too many requests this minute: ${limit.used} of ${limit.limit}.`,
      advice: `Retry comes back at ${when}; or raise the requests per minute on the Keys page.`,
      retry: reset !== null && reset > now ? 'later' : 'now',
      retryAt: reset,
      action: KEYS,
    };
  }
  if (code === 'rate_limit_exceeded' && limit?.name === 'images_per_day') {
    const when = reset !== null ? `, or wait until ${resetWords(reset, now)}` : '';
    return {
      ...base,
      kind: 'daily',
      title: `Today’s images are used: ${limit.used} of ${limit.limit}${
        limit.requested ? `, and this request asks for ${limit.requested}` : ''
      }.`,
      advice: `Raise the images per day on the Keys page${when}.`,
      retry: 'never',
      action: KEYS,
    };
  }
  if (code === 'concurrency_limit_exceeded') {
    return {
      ...base,
      kind: 'concurrency',
      title: 'Too many requests at once',
      advice: 'One of this key’s requests must finish first; then Retry.',
      retry: 'now',
      action: null,
    };
  }
  return null;
}

/** An ISO time as the gateway writes it ("2026-11-24T11:09:13.643Z"). */
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z/g;

const pad = (n: number) => String(n).padStart(2, '0');

/** "14:09, in 12 min" (today) or "2026-11-25 09:00, in 19 h 51 min" (another day), local. */
export function localMoment(ms: number, now: number): string {
  const d = new Date(ms);
  const n = new Date(now);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const sameDay = d.toDateString() === n.toDateString();
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const when = sameDay ? time : `${day} ${time}`;
  return ms > now ? `${when}, in ${formatDuration(ms - now)}` : when;
}

/** The first machine time in a message, and the message with every such time made local. */
function localTimes(message: string, now: number): { text: string; first: number | null } {
  let first: number | null = null;
  const text = message.replace(ISO_TIME, (iso) => {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) return iso;
    first ??= ms;
    return localMoment(ms, now);
  });
  return { text, first };
}

/** Advice the gateway folded into its message, said again (or contradicted) by `advice`. */
const FOLDED_ADVICE = /\s*(?:Simplify the prompt; )?retrying unchanged will not help\.?/i;

/** The upstream was not reached or answered with a server error: the account, not the image. */
const UNREACHED_CODES = new Set(['upstream_network_error', 'upstream_http_error']);

const REFUSAL_CODES = new Set([
  'moderation_blocked',
  'content_policy_violation',
  'upstream_refused',
  'content_filter',
]);
const NO_ACCOUNT_CODES = new Set([
  'no_account_available',
  'account_unavailable',
  'size_not_available',
]);
const UPSTREAM_CODES = new Set([
  'upstream_network_error',
  'upstream_timeout',
  'upstream_no_image',
  'upstream_http_error',
  'upstream_bad_response',
]);

export function errorView(error: GatewayErrorInfo, now: number): ErrorView {
  const { text, first } = localTimes(error.message, now);
  const message = text.replace(FOLDED_ADVICE, '').trim();
  const code = error.code ?? '';
  const view = (
    kind: ErrorView['kind'],
    title: string,
    advice: string | null,
    retry: ErrorView['retry'],
    retryAt: number | null = null,
  ): ErrorView => ({ kind, title, message, advice, retry, retryAt, action: null });

  if (code === 'studio_session_required' || code === 'INVALID_API_KEY' || error.status === 401) {
    return view(
      'session',
      'Signed out',
      'Open a fresh login link printed by `atelier serve`.',
      'never',
    );
  }
  if (REFUSAL_CODES.has(code)) {
    return view(
      'refused',
      'The prompt was refused',
      'The content policy refused it: change the prompt, then send again. Sending it unchanged will be refused again.',
      'never',
    );
  }
  if (code === 'usage_limit_reached' || error.type === 'usage_limit_reached') {
    const later = first !== null && first > now;
    const accounts = { label: 'Open Accounts', path: '/accounts' };
    return {
      ...view(
        'limit',
        'The upstream account’s usage limit is reached',
        later
          ? 'Retry comes back here once it resets; or add another account on the Accounts page.'
          : 'Wait for the window to reset, or add another account on the Accounts page.',
        later ? 'later' : 'now',
        later ? first : null,
      ),
      action: accounts,
    };
  }
  const keyLimit = error.status === 429 ? keyLimitView(code, error.limit ?? null, now) : null;
  if (keyLimit) return keyLimit;
  if (error.status === 429) {
    // What is left: the upstream itself rate limiting (its own 429), which passes.
    return view('busy', 'The upstream is busy', 'Wait a moment, then retry.', 'now');
  }
  if (NO_ACCOUNT_CODES.has(code)) {
    return view(
      'no_account',
      'No account can make this image',
      code === 'size_not_available'
        ? 'Ask for a smaller size, or add an account that can make it.'
        : 'Add or enable an account on the Accounts page.',
      'never',
    );
  }
  if (error.status === 400 || error.status === 413 || error.status === 422) {
    return view(
      'invalid',
      'The request was refused',
      error.param ? `Change ${error.param}, then send again.` : 'Change it, then send again.',
      'never',
    );
  }
  if (code === 'upstream_partial_failure') {
    return view(
      'partial',
      'Some images could not be made',
      'None were kept, so none is silently missing. Retrying may help.',
      'now',
    );
  }
  if (UNREACHED_CODES.has(code)) {
    // Nothing about the image is at fault: smaller sizes would fail the same way (issue 22).
    return view(
      'upstream',
      'The upstream could not be reached',
      'Check the account on the Accounts page (Test connection says why), then retry.',
      'now',
    );
  }
  if (UPSTREAM_CODES.has(code) || code.startsWith('upstream_') || error.status >= 500) {
    return view(
      'upstream',
      'The image could not be made',
      code === 'upstream_timeout'
        ? 'Retrying may help; if it keeps timing out, lower the size or quality.'
        : 'Retrying may help.',
      'now',
    );
  }
  if (error.status === 0 && !code) {
    return view(
      'offline',
      'Atelier did not answer',
      'Check that Atelier is still running, then retry.',
      'now',
    );
  }
  return view('other', `The request failed (${error.status})`, null, 'now');
}
