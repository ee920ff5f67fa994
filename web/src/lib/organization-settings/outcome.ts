// How a refused call of the settings page reads: the fields it names, else its message, else the network's failure.
import { ApiError } from '$lib/api/api-error';
import { fieldErrorsOf, type FieldErrors } from '$lib/api/field-errors';
import { t } from '$lib/i18n/translate.svelte';

export interface Refusal {
  errors: FieldErrors;
  message: string;
}

export function refusalOf(error: unknown): Refusal {
  if (error instanceof ApiError && error.status !== 0) return { errors: fieldErrorsOf(error), message: error.message };
  return { errors: {}, message: t('common.networkError') };
}

/** What reading the settings said: allowed, or refused with the status and message (403 for a member who is not an admin). */
export type SettingsAccess = { allowed: true } | { allowed: false; status: number; message: string };
