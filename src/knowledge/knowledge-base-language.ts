/**
 * A knowledge base's language tag (BCP-47), which labels its material; a new knowledge base also
 * takes its search language from it unless told otherwise (searchLanguageOfTag, text-analysis.ts).
 */
import { AppError } from '../errors/app-error.js';

/**
 * A language tag in canonical case (`PT-br` → `pt-BR`), or null for none; the schema's pattern has
 * let it through, and Intl refuses what is still not a well-formed tag.
 */
export function canonicalLanguage(tag: string | null | undefined): string | null {
  if (tag === undefined || tag === null) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    throw new AppError('invalid_body', 'The language must be a BCP-47 language tag such as "en", "es", "ca" or "eu".', {
      param: 'language',
    });
  }
}
