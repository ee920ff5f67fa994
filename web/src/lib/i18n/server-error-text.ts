/**
 * The server's errors in the reader's language: every error carries a stable code (the API's
 * `error.code`, also in a stream's closing error chunk), and a code the catalogue knows is shown
 * in its words; any other keeps the server's own (English) message.
 */
import { english } from './catalogue';
import { t, type MessageKey } from './translate.svelte';

type KnownCode = keyof typeof english.serverErrors;

function isKnownCode(code: string): code is KnownCode {
  return Object.hasOwn(english.serverErrors, code);
}

export function serverErrorText(code: string | undefined, message: string): string {
  if (code !== undefined && isKnownCode(code)) return t(`serverErrors.${code}` as MessageKey);
  return message;
}
