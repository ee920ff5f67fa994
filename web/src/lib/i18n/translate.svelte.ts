/**
 * `t('area.key', {name})` and `plural('area.key', count)`: the strings of the chosen language,
 * reactive, so a page re-renders when the language changes. Values in `{{name}}` are filled in;
 * single braces stay as written, because prompt templates use `{context}` and pages show them.
 * The choice is kept in a plain cookie (a preference, not a credential); the first visit
 * follows the browser's language.
 */
import { catalogues, english, offeredLocales, type English, type Locale } from './catalogue';

type Area = keyof English;
export type MessageKey = { [A in Area]: `${A}.${keyof English[A] & string}` }[Area];
type PluralBase<Keys> = Keys extends `${infer Base}_other` ? Base : never;
export type PluralKey = { [A in Area]: `${A}.${PluralBase<keyof English[A] & string>}` }[Area];

const localeCookie = 'merino_locale';

function isLocale(value: string | undefined): value is Locale {
  return value !== undefined && Object.hasOwn(catalogues, value);
}

function initialLocale(): Locale {
  if (typeof document === 'undefined') return 'en';
  const saved = /(?:^|;\s*)merino_locale=([a-z]{2})/.exec(document.cookie)?.[1];
  if (isLocale(saved)) return saved;
  const browser = navigator.language.slice(0, 2).toLowerCase();
  return offeredLocales.some((offered) => offered.code === browser) && isLocale(browser) ? browser : 'en';
}

const state = $state<{ locale: Locale }>({ locale: initialLocale() });

export function currentLocale(): Locale {
  return state.locale;
}

export function setLocale(locale: Locale): void {
  state.locale = locale;
  document.cookie = `${localeCookie}=${locale}; path=/; max-age=31536000; SameSite=Lax`;
  document.documentElement.lang = locale;
}

function lookup(locale: Locale, key: string): string {
  const [area, name] = key.split('.', 2) as [string, string];
  const areas = catalogues[locale] as Record<string, Record<string, string> | undefined>;
  const fallback = english as unknown as Record<string, Record<string, string> | undefined>;
  return areas[area]?.[name] ?? fallback[area]?.[name] ?? key;
}

function fill(text: string, values: Record<string, string | number> | undefined): string {
  if (!values) return text;
  return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}

/** The string for a key in the current language, with `{{name}}` values filled in. */
export function t(key: MessageKey, values?: Record<string, string | number>): string {
  return fill(lookup(state.locale, key), values);
}

/** The string for a count: `key_one`, `key_other` (and any other plural category a language has). */
export function plural(key: PluralKey, count: number, values?: Record<string, string | number>): string {
  const base: string = key;
  const category = new Intl.PluralRules(state.locale).select(count);
  const text = lookup(state.locale, `${base}_${category}`);
  const chosen = text === `${base}_${category}` ? lookup(state.locale, `${base}_other`) : text;
  return fill(chosen, { count, ...values });
}
