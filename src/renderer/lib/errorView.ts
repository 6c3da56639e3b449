import { formatDuration } from './format';
import type { GatewayErrorInfo } from './api/errors';

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
  ): ErrorView => ({ kind, title, message, advice, retry, retryAt });

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
    return view(
      'limit',
      'The account’s usage limit is reached',
      later
        ? 'Retry comes back here once it resets; or add another account on the Accounts page.'
        : 'Wait for the window to reset, or add another account on the Accounts page.',
      later ? 'later' : 'now',
      later ? first : null,
    );
  }
  if (error.status === 429) {
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
