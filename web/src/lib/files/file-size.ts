/** A file's size as people read it: bytes, then kilobytes and megabytes to one decimal, in the page's language. */
import { currentLocale } from '$lib/i18n/translate.svelte';

const UNITS = ['B', 'KB', 'MB', 'GB'] as const;

export function readableSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 ? 0 : 1;
  return `${new Intl.NumberFormat(currentLocale(), { maximumFractionDigits: digits }).format(value)} ${UNITS[unit]}`;
}
