import { useState } from 'react';
import type { GatewayErrorInfo } from './api/errors';
import { errorInfo } from './hooks';

export type FieldErrors<F extends string> = Partial<Record<F, string>>;

export interface SendOutcome<F extends string> {
  errors: FieldErrors<F>;
  failure: GatewayErrorInfo | null;
}

/**
 * Sends a form that passed its own checks. A refusal whose `param` is one of `fields` (a 400
 * naming the field at fault) is shown on that field; anything else is the form's failure.
 */
export async function sendForm<F extends string>(
  fields: readonly F[],
  send: () => Promise<void>,
): Promise<SendOutcome<F>> {
  try {
    await send();
    return { errors: {}, failure: null };
  } catch (e) {
    const info = errorInfo(e);
    const field = fields.find((f) => f === info.param);
    if (field === undefined) return { errors: {}, failure: info };
    const errors: FieldErrors<F> = {};
    errors[field] = info.message;
    return { errors, failure: null };
  }
}

/**
 * The state every studio form dialog keeps: field errors, the form's own failure, and whether a
 * request is under way. `invalid` shows what the form's checks found; `submit` sends.
 */
export function useFormSubmit<F extends string>(fields: readonly F[]) {
  const [errors, setErrors] = useState<FieldErrors<F>>({});
  const [failure, setFailure] = useState<GatewayErrorInfo | null>(null);
  const [busy, setBusy] = useState(false);
  return {
    errors,
    failure,
    busy,
    invalid(problems: FieldErrors<F>) {
      setErrors(problems);
      setFailure(null);
    },
    async submit(send: () => Promise<void>) {
      setErrors({});
      setFailure(null);
      setBusy(true);
      const outcome = await sendForm(fields, send);
      setErrors(outcome.errors);
      setFailure(outcome.failure);
      setBusy(false);
    },
    reset() {
      setErrors({});
      setFailure(null);
    },
  };
}
