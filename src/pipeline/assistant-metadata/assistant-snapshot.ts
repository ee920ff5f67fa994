/** The assistant as the pipeline sees it: what was stored, with metadata already normalised. */
import type { AssistantMetadata } from './metadata-normalizer.js';

export interface AssistantSnapshot {
  id: number;
  name: string;
  ownerId: number;
  organizationId: number;
  systemPrompt: string;
  promptTemplate: string;
  metadata: AssistantMetadata;
  ragCollections: string[];
  ragTopK: number;
}
