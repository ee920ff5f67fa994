/** What `POST /api/assistants/import?dry_run=true` answers (src/assistants/assistant-transfer-service.ts, ImportPreview). */
import type { AssistantMetadata } from './assistant-types';

export interface ImportProblem {
  path: string;
  code: string;
  message: string;
  /** The unreachable knowledge-base id, file path or rubric id, on missing_* problems. */
  reference?: string;
  /** True when the import would be refused because of it. */
  blocking: boolean;
}

export interface ImportPreview {
  assistant: {
    name: string;
    description: string;
    assistant_type: 'classic' | 'multi_tool';
    is_orchestrator: boolean;
    metadata: AssistantMetadata;
    rag_collections: string[];
  };
  problems: ImportProblem[];
}
