/**
 * How a refused form reads: the problems the server named per field, and its message
 * (refusal.ts words it the same as every page does).
 */
import { fieldErrorsOf, type FieldErrors } from '$lib/api/field-errors';
import { refusalMessage } from './refusal';

export interface Refusal {
  errors: FieldErrors;
  message: string;
}

export function refusalOf(error: unknown): Refusal {
  return { errors: fieldErrorsOf(error), message: refusalMessage(error) };
}

/**
 * For a form that shows each named field's problem beside the field: the message above the form
 * only when the refusal names no field.
 */
export function formRefusalOf(error: unknown): { errors: FieldErrors; failure: string | undefined } {
  const { errors, message } = refusalOf(error);
  return { errors, failure: Object.keys(errors).length === 0 ? message : undefined };
}
