/**
 * What `POST /api/assistants/import?dry_run=true` answers (src/assistants/assistant-schemas.ts,
 * importPreviewSchema), as the generated types say; only the metadata is read more closely, as
 * the pages read an assistant's.
 */
import type { AssistantMetadata } from './assistant-types';
import type { paths } from './generated/openapi';

type PreviewAnswer = paths['/api/assistants/import']['post']['responses'][200]['content']['application/json'];

export type ImportProblem = PreviewAnswer['problems'][number];

export type ImportPreview = Omit<PreviewAnswer, 'assistant'> & {
  assistant: Omit<PreviewAnswer['assistant'], 'metadata'> & { metadata: AssistantMetadata };
};
