// A server timestamp as a reader of the chosen language expects it (date and time, in their zone).
import { currentLocale } from '$lib/i18n/translate.svelte';

export function formatTimestamp(timestamp: string): string {
  return new Intl.DateTimeFormat(currentLocale(), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(timestamp));
}
