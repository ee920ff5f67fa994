/**
 * How a refused API call reads on a page: the server's own message, or the network's failure when
 * the call never reached it. One wording for every page, so a refusal says the same everywhere.
 * Kept apart from the field errors (form-refusal.ts), which only forms need.
 */
import { ApiError } from '$lib/api/api-error';
import { t } from '$lib/i18n/translate.svelte';

/** `fallback` is what a call that never reached the server says; a network failure by default. */
export function refusalMessage(error: unknown, fallback: string = t('common.networkError')): string {
  return error instanceof ApiError && error.status !== 0 ? error.message : fallback;
}

/** The text of an action's success (its answer), or of its refusal: what a page announces after it. */
export async function outcomeText(action: () => Promise<string>): Promise<string> {
  try {
    return await action();
  } catch (error) {
    return refusalMessage(error);
  }
}
