/**
 * What a browser loads without fetch: `<img>`, download links and EventSource cannot send the
 * studio header, and the gateway admits them on the cookie plus `Sec-Fetch-Site: same-origin`.
 */
import { queryString } from './request';
import type { UsageFilters } from './usage';

/** An image of the gallery (GET/PATCH/DELETE /api/admin/images/{id}). */
export const imagePath = (id: string) => `/api/admin/images/${encodeURIComponent(id)}`;

export const adminUrls = {
  thumb: (id: string) => `${imagePath(id)}/thumb`,
  file: (id: string) => `${imagePath(id)}/file`,
  mask: (id: string) => `${imagePath(id)}/mask`,
  usageCsv: (filters: UsageFilters = {}) => `/api/admin/usage.csv${queryString({ ...filters })}`,
  events: '/api/admin/events',
} as const;
