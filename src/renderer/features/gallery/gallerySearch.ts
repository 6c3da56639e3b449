import { MAX_IMAGE_SEARCH_MODEL, MAX_IMAGE_SEARCH_TEXT } from '../../../shared/admin';

/**
 * The gallery's search box: prompt words, and filters written as `field:value`.
 *
 *   lighthouse model:image-model-2 size:1024x1536 key:"my app" date:2026-11-24
 *
 * `model:` exact model, `size:` WxH (the file's or the requested size) or auto, `key:` an API
 * key's name (or id), `date:` a local day (YYYY-MM-DD) or month (YYYY-MM), `from:` / `to:` local
 * days (both included). Quotes keep spaces in a value. Everything else is searched in prompts.
 */
export interface SearchFilters {
  q: string;
  model?: string;
  size?: string;
  /** API key id. */
  key?: string;
  /** ms, inclusive. */
  since?: number;
  /** ms, exclusive. */
  until?: number;
}

export interface ParsedSearch {
  filters: SearchFilters;
  /** What could not be understood: shown beside the box; the search runs without it. */
  problems: string[];
}

export const SEARCH_FIELDS = ['model', 'size', 'key', 'date', 'from', 'to'] as const;

const TOKEN = /(\w+):(?:"([^"]*)"?|(\S*))|"([^"]*)"?|(\S+)/g;

/**
 * Local midnight of year-month-day. setFullYear, not the Date constructor: the constructor reads
 * years 0 to 99 as 1900 to 1999, so 0001-01-01 would be 1901.
 */
function localMidnight(year: number, month: number, day: number): Date {
  const date = new Date(2000, 0, 1);
  date.setFullYear(year, month, day);
  return date;
}

/** Local midnight of YYYY-MM-DD (or the 1st of YYYY-MM), or null. */
function localDay(text: string): { start: number; end: number } | null {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const month = /^(\d{4})-(\d{2})$/.exec(text);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]) - 1, Number(day[3])];
    const start = localMidnight(y, m, d);
    if (start.getMonth() !== m || start.getDate() !== d) return null;
    return { start: start.getTime(), end: localMidnight(y, m, d + 1).getTime() };
  }
  if (month) {
    const [y, m] = [Number(month[1]), Number(month[2]) - 1];
    if (m < 0 || m > 11) return null;
    return { start: localMidnight(y, m, 1).getTime(), end: localMidnight(y, m + 1, 1).getTime() };
  }
  return null;
}

export function parseSearch(
  text: string,
  keys: ReadonlyArray<{ id: string; name: string }>,
): ParsedSearch {
  const filters: SearchFilters = { q: '' };
  const problems: string[] = [];
  const words: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const [, rawField, quoted, plain, quotedWord, word] = match;
    const field = rawField?.toLowerCase();
    const value = (quoted ?? plain ?? '').trim();
    if (!field || !(SEARCH_FIELDS as readonly string[]).includes(field)) {
      words.push(rawField ? match[0] : (quotedWord ?? word ?? ''));
      continue;
    }
    if (!value) {
      problems.push(`${field}: needs a value`);
      continue;
    }
    switch (field) {
      case 'model':
        if (value.length <= MAX_IMAGE_SEARCH_MODEL) filters.model = value;
        else problems.push(`model: longer than ${MAX_IMAGE_SEARCH_MODEL} characters`);
        break;
      case 'size': {
        const size = value.toLowerCase().replace('×', 'x');
        if (/^(\d{1,5}x\d{1,5}|auto)$/.test(size)) filters.size = size;
        else problems.push(`size: "${value}" is not a size like 1024x1536`);
        break;
      }
      case 'key': {
        const lower = value.toLowerCase();
        const found = keys.find((k) => k.name.toLowerCase() === lower || k.id === value);
        if (found) filters.key = found.id;
        else problems.push(`key: no API key is named "${value}"`);
        break;
      }
      default: {
        const range = localDay(value);
        if (!range) {
          problems.push(`${field}: "${value}" is not a date like 2026-11-24`);
          break;
        }
        // Times before 1970 are negative, and the gallery holds nothing that old; a local
        // 1 January 1970 east of Greenwich starts a few hours before 0 and is read from 0.
        if (range.end <= 0) {
          problems.push(`${field}: "${value}" is before 1970; the gallery starts in 1970`);
          break;
        }
        range.start = Math.max(range.start, 0);
        if (field !== 'to') filters.since = range.start;
        if (field !== 'from') filters.until = range.end;
      }
    }
  }
  filters.q = words.join(' ').trim();
  if (filters.q.length > MAX_IMAGE_SEARCH_TEXT) {
    problems.push(`only the first ${MAX_IMAGE_SEARCH_TEXT} characters of the text are searched`);
    filters.q = filters.q.slice(0, MAX_IMAGE_SEARCH_TEXT).trim();
  }
  if (
    filters.since !== undefined &&
    filters.until !== undefined &&
    filters.since >= filters.until
  ) {
    problems.push('to: is before from:');
    delete filters.until;
  }
  return { filters, problems };
}
