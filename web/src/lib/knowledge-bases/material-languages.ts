/**
 * The languages a knowledge base's material may be marked with in the pages: the ones the app
 * itself speaks, each named in its own language, plus "not set" and "other" (any BCP-47 tag the
 * server accepts). The server checks and canonicalises the tag.
 */
import type { SelectOption } from '$lib/components/SelectField.svelte';
import { t } from '$lib/i18n/translate.svelte';

/** The select's values for "not set" and "type a code". */
export const NO_LANGUAGE = '';
export const OTHER_LANGUAGE = 'other';

const APP_LANGUAGES: readonly { code: string; name: string }[] = [
  { code: 'en', name: 'English' },
  { code: 'es', name: 'Español' },
  { code: 'ca', name: 'Català' },
  { code: 'eu', name: 'Euskara' },
];

export function languageOptions(): SelectOption[] {
  return [
    { value: NO_LANGUAGE, label: t('knowledgeBasePage.languageNone') },
    ...APP_LANGUAGES.map((language) => ({ value: language.code, label: language.name })),
    { value: OTHER_LANGUAGE, label: t('knowledgeBasePage.languageOther') },
  ];
}

/** Which option shows a stored tag: its own, or "other" for one the list does not name. */
export function optionOf(tag: string | null): string {
  if (tag === null) return NO_LANGUAGE;
  return APP_LANGUAGES.some((language) => language.code === tag) ? tag : OTHER_LANGUAGE;
}

/** The tag to send from the select and the free-text code: null for "not set". */
export function tagOf(option: string, typedCode: string): string | null {
  if (option === NO_LANGUAGE) return null;
  if (option === OTHER_LANGUAGE) return typedCode.trim() === '' ? null : typedCode.trim();
  return option;
}

/** A tag as people read it: the app's own name for it, else the tag itself. */
export function languageName(tag: string | null): string {
  if (tag === null) return t('knowledgeBasePage.languageNone');
  return APP_LANGUAGES.find((language) => language.code === tag)?.name ?? tag;
}
