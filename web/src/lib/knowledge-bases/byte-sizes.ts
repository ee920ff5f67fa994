/** Sizes of files in words people read ("60 MB", "512 KB"), in the reader's language. */
import { currentLocale } from '$lib/i18n/translate.svelte';

const UNITS: readonly { unit: 'byte' | 'kilobyte' | 'megabyte' | 'gigabyte'; bytes: number }[] = [
  { unit: 'gigabyte', bytes: 1024 ** 3 },
  { unit: 'megabyte', bytes: 1024 ** 2 },
  { unit: 'kilobyte', bytes: 1024 },
  { unit: 'byte', bytes: 1 },
];

export function formatBytes(bytes: number): string {
  const { unit, bytes: size } = UNITS.find((candidate) => bytes >= candidate.bytes) ?? { unit: 'byte', bytes: 1 };
  return new Intl.NumberFormat(currentLocale(), { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 }).format(
    bytes / size,
  );
}
