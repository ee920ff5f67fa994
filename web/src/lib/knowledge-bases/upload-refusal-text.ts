/**
 * Why the server refused an upload, in the reader's words: "too large: 60 MB, the limit is 50 MB"
 * from the file's own size and the limit the refusal carries; the server's known codes in the
 * catalogue's words; any other refusal in the server's own message, which names the cause
 * (a file whose content does not match its extension, an empty file).
 */
import { ApiError } from '$lib/api/api-error';
import { UploadRefused } from '$lib/api/document-upload';
import { serverErrorText } from '$lib/i18n/server-error-text';
import { t } from '$lib/i18n/translate.svelte';
import { formatBytes } from './byte-sizes';

export function uploadRefusalText(error: unknown, file: File): string {
  if (error instanceof UploadRefused && error.code === 'file_too_large' && error.bytesMaximum !== undefined) {
    return t('knowledgeBasePage.tooLarge', { size: formatBytes(file.size), limit: formatBytes(error.bytesMaximum) });
  }
  if (error instanceof ApiError) return serverErrorText(error.code, error.message);
  return error instanceof Error ? error.message : String(error);
}
