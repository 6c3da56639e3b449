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

/** Local midnight of YYYY-MM-DD (or the 1st of YYYY-MM), or null. */
function localDay(text: string): { start: number; end: number } | null {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const month = /^(\d{4})-(\d{2})$/.exec(text);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]) - 1, Number(day[3])];
    const start = new Date(y, m, d);
    if (start.getMonth() !== m || start.getDate() !== d) return null;
    return { start: start.getTime(), end: new Date(y, m, d + 1).getTime() };
  }
  if (month) {
    const [y, m] = [Number(month[1]), Number(month[2]) - 1];
    if (m < 0 || m > 11) return null;
    return { start: new Date(y, m, 1).getTime(), end: new Date(y, m + 1, 1).getTime() };
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
        filters.model = value;
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
        if (field !== 'to') filters.since = range.start;
        if (field !== 'from') filters.until = range.end;
      }
    }
  }
  filters.q = words.join(' ').trim();
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
