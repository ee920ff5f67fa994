/**
 * Header values of an MCP server may name the person chatting, as Open WebUI's do: `{{USER_ID}}`
 * and `{{USER_EMAIL}}` are replaced, in one pass, by the requester's Merino id and email. No
 * other placeholder exists, so a token can never be put into a header this way; an unknown one
 * is refused when the server is saved.
 */
import { AppError } from '../errors/app-error.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z_]+)\s*\}\}/g;
const KNOWN_PLACEHOLDERS = new Set(['USER_ID', 'USER_EMAIL']);

/** Refuses a value naming a placeholder other than {{USER_ID}} and {{USER_EMAIL}}, naming the field. */
export function checkHeaderTemplate(value: string, field: string): void {
  for (const match of value.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? '';
    if (!KNOWN_PLACEHOLDERS.has(name))
      throw new AppError('invalid_body', `${field} uses {{${name}}}; only {{USER_ID}} and {{USER_EMAIL}} may be used.`, { param: field });
  }
}

/** The value with the requester's id and email put in (one pass: an email is never read as a placeholder). */
export function fillHeaderTemplate(value: string, requester: { userId: number; email: string }): string {
  return value.replace(PLACEHOLDER, (whole, name: string) => {
    if (name === 'USER_ID') return String(requester.userId);
    if (name === 'USER_EMAIL') return requester.email;
    return whole;
  });
}
