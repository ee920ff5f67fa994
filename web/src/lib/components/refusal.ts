/**
 * How a refused API call reads on a page: the fields it names, else its message, else the
 * network's failure. One reading for every form, so a refusal says the same thing everywhere.
 */
import { ApiError } from '$lib/api/api-error';
import { fieldErrorsOf, type FieldErrors } from '$lib/api/field-errors';
import { t } from '$lib/i18n/translate.svelte';

export interface Refusal {
  errors: FieldErrors;
  message: string;
}

/** `fallback` is what a call that never reached the server says; a network failure by default. */
export function refusalOf(error: unknown, fallback: string = t('common.networkError')): Refusal {
  if (error instanceof ApiError && error.status !== 0) return { errors: fieldErrorsOf(error), message: error.message };
  return { errors: {}, message: fallback };
}

/**
 * For a form that shows each named field's problem beside the field: the message above the form
 * only when the refusal names no field.
 */
export function formRefusalOf(error: unknown): { errors: FieldErrors; failure: string | undefined } {
  const { errors, message } = refusalOf(error);
  return { errors, failure: Object.keys(errors).length === 0 ? message : undefined };
}

/** The text of an action's success (its answer), or of its refusal: what a page announces after it. */
export async function outcomeText(action: () => Promise<string>): Promise<string> {
  try {
    return await action();
  } catch (error) {
    return refusalOf(error).message;
  }
}
