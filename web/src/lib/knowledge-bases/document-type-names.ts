/** A document's content type as people name it ("PDF", "Word"), or the type itself when it has no plain name. */
const PLAIN_TYPE_NAMES: Record<string, string> = {
  'application/pdf': 'PDF',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word',
  'text/markdown': 'Markdown',
  'text/html': 'HTML',
  'text/plain': 'Text',
};

export function documentTypeName(contentType: string): string {
  const bare = contentType.split(';')[0]?.trim().toLowerCase() ?? contentType;
  return PLAIN_TYPE_NAMES[bare] ?? bare;
}
