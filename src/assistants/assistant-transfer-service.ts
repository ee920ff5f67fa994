/**
 * Moving assistants in and out as LAMB export documents (lamb-export.ts): export one the caller
 * may export, import one as a new assistant owned by the caller, or preview an import without
 * writing anything. An import is checked as a create is: permission first, metadata against the
 * installed plugins, assistant tools as the caller, and an audit entry in the same transaction.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireAssistantCreation } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { assistantTypeOf, isOrchestrator, type AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import type { Database } from '../store/schema.js';
import { trimCharacters } from '../text-trimming/trim-characters.js';
import { insertAssistantRecord, loadAssistant } from './assistant-records.js';
import { requireReadableFiles, type FileReadCheck } from './assistant-file-references.js';
import { requireOwnMcpServers } from './assistant-mcp-servers.js';
import { requireUsableTargets } from './assistant-tool-targets.js';
import { splitCollections, type AssistantView } from './assistant-view.js';
import { blockingProblemsOf, missingReferences, type ImportProblem, type ReferenceReaders } from './import-references.js';
import { asImportMetadataError, fromImportDocument, toExportDocument } from './lamb-export.js';
import { requireInstalledPlugins } from './metadata-registry-check.js';

/** What `POST /api/assistants/import?dry_run=true` answers: the assistant as it would be created, and what stands in its way. */
export interface ImportPreview {
  assistant: {
    name: string;
    description: string;
    assistant_type: 'classic' | 'multi_tool';
    is_orchestrator: boolean;
    system_prompt: string;
    prompt_template: string;
    metadata: AssistantMetadata;
    rag_collections: string[];
    rag_top_k: number;
  };
  problems: ImportProblem[];
}

export class AssistantTransferService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly registries: Registries,
    private readonly referenceReaders: ReferenceReaders,
    private readonly mayReadFile: FileReadCheck,
  ) {}

  async import(context: CallContext, document: unknown): Promise<AssistantView> {
    requireAssistantCreation(context.identity);
    const fields = fromImportDocument(document);
    let metadata: AssistantMetadata;
    try {
      metadata = requireInstalledPlugins(fields.metadata, this.registries);
      await requireUsableTargets(this.db, metadata, context.identity, undefined);
      await requireReadableFiles(metadata, context.identity, this.mayReadFile);
      await requireOwnMcpServers(this.db, metadata, context.identity);
    } catch (error) {
      throw asImportMetadataError(document, error);
    }
    return insertAssistantRecord(this.db, context, { ...fields, metadata }, { action: 'assistant.import' });
  }

  /**
   * Dry run of `import`: reads the document as import would (an unreadable one is refused the
   * same way), then reports instead of refusing what import's checks would refuse (blocking
   * problems) and the knowledge bases, files and rubrics the caller cannot reach. Writes nothing.
   */
  async previewImport(context: CallContext, document: unknown): Promise<ImportPreview> {
    requireAssistantCreation(context.identity);
    const fields = fromImportDocument(document);
    const problems: ImportProblem[] = [];
    try {
      const metadata = requireInstalledPlugins(fields.metadata, this.registries);
      await requireUsableTargets(this.db, metadata, context.identity, undefined);
      await requireOwnMcpServers(this.db, metadata, context.identity);
    } catch (error) {
      const named = asImportMetadataError(document, error);
      if (!(named instanceof AppError) || named.status >= 500) throw named;
      problems.push(...blockingProblemsOf(named));
    }
    problems.push(...(await missingReferences(context.identity, fields.metadata, fields.ragCollections, this.referenceReaders)));
    return {
      assistant: {
        name: fields.name,
        description: fields.description,
        assistant_type: assistantTypeOf(fields.metadata),
        is_orchestrator: isOrchestrator(fields.metadata),
        system_prompt: fields.systemPrompt,
        prompt_template: fields.promptTemplate,
        metadata: fields.metadata,
        rag_collections: fields.ragCollections,
        rag_top_k: fields.ragTopK,
      },
      problems,
    };
  }

  async export(context: CallContext, id: number): Promise<{ document: Record<string, unknown>; fileName: string }> {
    const record = await loadAssistant(this.db, context, id, 'export');
    const document = toExportDocument({
      id: record.id,
      name: record.name,
      description: record.description,
      ownerEmail: record.owner_email,
      systemPrompt: record.system_prompt,
      promptTemplate: record.prompt_template,
      metadata: JSON.parse(record.metadata) as AssistantMetadata,
      ragCollections: splitCollections(record.rag_collections),
      ragTopK: record.rag_top_k,
      published: record.published === 1,
      publishedAt: record.published_at,
      createdAt: record.created_at,
      updatedAt: record.updated_at,
    });
    const safeName = trimCharacters(record.name.normalize('NFKD').replace(/[^A-Za-z0-9_.-]+/g, '_'), '_.-').slice(0, 100);
    return { document, fileName: `${safeName || 'assistant'}.json` };
  }
}
