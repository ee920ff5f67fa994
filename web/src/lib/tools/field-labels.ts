/**
 * The words a tool card shows for a config field or an enum value: the catalogue's when it has
 * them (the installed tools' fields are all there), else the property name made readable, so a
 * newly installed tool still gets a usable form before its labels are translated.
 */
import { t, type MessageKey } from '$lib/i18n/translate.svelte';

function translatedOr(key: string, fallback: string): string {
  const text = t(key as MessageKey);
  return text === key ? fallback : text;
}

/** `max_chars` → `Max chars`. */
export function readable(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function fieldLabel(key: string): string {
  return translatedOr(`toolsManager.field_${key}`, readable(key));
}

export function optionLabel(value: string): string {
  return translatedOr(`toolsManager.option_${value}`, readable(value));
}

/** Why an assistant may not be a tool target (self, orchestrator, not_permitted), in words. */
export function refusalReason(reason: string): string {
  return translatedOr(`toolsManager.reason_${reason}`, reason);
}
