/**
 * Reads a dropped or chosen export file into JSON before anything is sent: a file too large or
 * not JSON is told at once, in the user's language, instead of as a server error.
 */

/** Far above any real export (prompts are capped at 200 000 characters each) and below the server's body limit. */
export const IMPORT_FILE_BYTES_MAXIMUM = 4 * 1024 * 1024;

export type ImportFileReading = { kind: 'read'; document: unknown } | { kind: 'too_large' } | { kind: 'not_json'; message: string };

export async function readImportFile(file: File): Promise<ImportFileReading> {
  if (file.size > IMPORT_FILE_BYTES_MAXIMUM) return { kind: 'too_large' };
  try {
    return { kind: 'read', document: JSON.parse(await file.text()) as unknown };
  } catch (error) {
    return { kind: 'not_json', message: error instanceof Error ? error.message : String(error) };
  }
}
