/**
 * Reading and writing one config value as a form control holds it: an empty input removes the key
 * (so the schema's default applies on the server), a number input's text becomes a number.
 */

export function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

export function setText(target: Record<string, unknown>, key: string, text: string): void {
  if (text === '') Reflect.deleteProperty(target, key);
  else target[key] = text;
}

/** A number input binds a number, or null (or '') while it is empty or not a number. */
export function setNumber(target: Record<string, unknown>, key: string, input: unknown): void {
  const number = typeof input === 'number' ? input : typeof input === 'string' && input.trim() !== '' ? Number(input) : Number.NaN;
  if (Number.isFinite(number)) target[key] = number;
  else Reflect.deleteProperty(target, key);
}

export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
