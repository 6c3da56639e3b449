/** POST /v1/images/edits: the multipart form (spec 4.2) and the JSON form share one result type. */
export type { EditRequest } from './editRules';
export { parseEditMultipart } from './editMultipart';
export { parseEditJson } from './editJson';
