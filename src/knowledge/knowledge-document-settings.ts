/** The document service's bounds as the server's settings give them (README settings table; docs/knowledge-bases.md). */
import type { Settings } from '../config/settings.js';
import type { KnowledgeDocumentServiceOptions } from './knowledge-document-service.js';

type BoundOptions = Pick<
  KnowledgeDocumentServiceOptions,
  'bytesMaximum' | 'textDocumentsMaximum' | 'uploadLeaseMilliseconds' | 'textWritesInFlight' | 'storedTextBytesMaximum'
>;

export function knowledgeDocumentBoundsOf(settings: Settings): BoundOptions {
  return {
    bytesMaximum: settings.knowledgeUploadBytesMaximum,
    textDocumentsMaximum: settings.knowledgeJsonDocumentsMaximum,
    uploadLeaseMilliseconds: settings.uploadLeaseMilliseconds,
    textWritesInFlight: settings.knowledgeJsonWritesInFlight,
    storedTextBytesMaximum: settings.knowledgeJsonStoredTextBytesMaximum,
  };
}
