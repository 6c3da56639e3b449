import type { z } from 'zod';
import { ERROR_CODES, ERROR_TYPES } from '../../../shared/errors';
import { ApiError, invalidParam } from '../../core/errors';

/**
 * Checks what arrived against its schema from src/shared/admin.ts; a failure is a 400 naming
 * the field at fault (`param`), like every other 400 of the gateway.
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const field = [...issue.path, ...keys.slice(0, 1)].join('.') || 'body';
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown field '${field}'.`
      : `Invalid '${field}': ${issue.message}.`;
  throw invalidParam(field, message);
}

export function notFound(what: string): ApiError {
  return new ApiError(404, `No such ${what}.`, {
    type: ERROR_TYPES.notFound,
    code: ERROR_CODES.notFound,
  });
}
