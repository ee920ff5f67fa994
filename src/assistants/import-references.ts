/**
 * What an import dry run checks beyond the document's own validity: the knowledge bases, files
 * and rubrics the assistant names, each looked up through the same owner-bound readers the
 * pipeline uses at chat time, as the importer (who would own it). A reference they cannot reach
 * is a problem to show before importing; only a file is also a refusal (import checks it as a save
 * does), the others the import stores as written.
 */
import type { Identity } from '../auth/identity.js';
import { AppError } from '../errors/app-error.js';
import type { FileReader, KnowledgeSearch, RubricReader } from '../pipeline/plugin-contract/ports.js';
import type { AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { singleFileReferences } from './assistant-file-references.js';

/** One thing the preview reports: where in the document, a stable code, and a message for people. */
export interface ImportProblem {
  path: string;
  code: string;
  message: string;
  /** The knowledge-base id, file path or rubric id that cannot be reached, so a client can word its own message. */
  reference?: string;
  /** True when the import would be refused because of it; false when it would import but not work as written. */
  blocking: boolean;
}

/** The owner-bound readers of src/pipeline/plugin-contract/ports.ts, built for the importer. */
export interface ReferenceReaders {
  knowledgeSearchFor: (owner: Identity) => KnowledgeSearch;
  fileReaderFor: (owner: Identity) => FileReader;
  rubricReaderFor: (owner: Identity) => RubricReader;
}

type ReferenceKind = 'knowledge_base' | 'file' | 'rubric';

interface Reference {
  kind: ReferenceKind;
  path: string;
  value: string;
}

/** Every knowledge base, file and rubric the metadata and collections name, with where they are named. */
function referencesOf(metadata: AssistantMetadata, ragCollections: readonly string[]): Reference[] {
  const references: Reference[] = ragCollections.map((value, index) => ({
    kind: 'knowledge_base',
    path: `RAG_collections[${index}]`,
    value,
  }));
  // Files as the save-time check finds them, so the preview blocks exactly what import refuses.
  const files = new Map(singleFileReferences(metadata).map((reference) => [reference.path, reference.filePath]));
  references.push(...fileReference(files, 'metadata.file_path'));
  if (typeof metadata.rubric_id === 'string' && metadata.rubric_id !== '') {
    references.push({ kind: 'rubric', path: 'metadata.rubric_id', value: metadata.rubric_id });
  }
  (metadata.tools ?? []).forEach((tool, index) => {
    const path = `metadata.tools[${index}].config`;
    references.push(...toolReferences(tool.config, path, fileReference(files, `${path}.file_path`)));
  });
  return references;
}

function fileReference(files: ReadonlyMap<string, string>, path: string): Reference[] {
  const value = files.get(path);
  return value === undefined ? [] : [{ kind: 'file', path, value }];
}

/** A tool's references in document order: its collections, its file (`file`, as found by the save-time check), its rubric. */
function toolReferences(config: Record<string, unknown>, path: string, file: Reference[]): Reference[] {
  const references: Reference[] = [];
  if (Array.isArray(config.collections)) {
    config.collections.forEach((value: unknown, index: number) => {
      if (typeof value === 'string') references.push({ kind: 'knowledge_base', path: `${path}.collections[${index}]`, value });
    });
  }
  references.push(...file);
  if (typeof config.rubric_id === 'string' && config.rubric_id !== '') {
    references.push({ kind: 'rubric', path: `${path}.rubric_id`, value: config.rubric_id });
  }
  return references;
}

const PROBLEM_OF: Record<ReferenceKind, { code: string; message: (value: string) => string }> = {
  knowledge_base: {
    code: 'missing_knowledge_base',
    message: (value) => `Knowledge base ${value} does not exist or you may not use it; the assistant would search nothing there.`,
  },
  file: {
    code: 'missing_file',
    message: (value) => `File "${value}" does not exist or you may not read it; upload it and choose it after importing.`,
  },
  rubric: {
    code: 'missing_rubric',
    message: (value) => `Rubric ${value} does not exist or you may not read it; choose another rubric after importing.`,
  },
};

/** Answers whether `owner` can reach the reference; undefined when this server cannot tell (an external knowledge server). */
async function reachable(reference: Reference, owner: Identity, readers: ReferenceReaders): Promise<boolean | undefined> {
  try {
    if (reference.kind === 'knowledge_base') await readers.knowledgeSearchFor(owner).listDocuments(reference.value);
    else if (reference.kind === 'file') await readers.fileReaderFor(owner).readText(reference.value, 1);
    else await readers.rubricReaderFor(owner).evaluation(reference.value, 'json');
    return true;
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    // listDocuments refuses an external knowledge server's collections: only that server knows them.
    if (reference.kind === 'knowledge_base' && error.code === 'invalid_parameter') return undefined;
    return false;
  }
}

/** The references `owner` cannot reach, in document order: files block the import, the others do not. */
export async function missingReferences(
  owner: Identity,
  metadata: AssistantMetadata,
  ragCollections: readonly string[],
  readers: ReferenceReaders,
): Promise<ImportProblem[]> {
  const problems: ImportProblem[] = [];
  for (const reference of referencesOf(metadata, ragCollections)) {
    if ((await reachable(reference, owner, readers)) !== false) continue;
    const { code, message } = PROBLEM_OF[reference.kind];
    // A file the importer may not read is refused by import itself (assistant-file-references.ts).
    const blocking = reference.kind === 'file';
    problems.push({ path: reference.path, code, message: message(reference.value), reference: reference.value, blocking });
  }
  return problems;
}

/** An import's own refusal (plugins, assistant tools) as blocking problems: every field it names, or the one param. */
export function blockingProblemsOf(error: AppError): ImportProblem[] {
  const listed = error.details?.errors;
  if (Array.isArray(listed) && listed.length > 0) {
    return (listed as Array<{ path: string; message: string }>).map((problem) => ({
      path: problem.path,
      code: error.code,
      message: problem.message,
      blocking: true,
    }));
  }
  return [{ path: error.param ?? '', code: error.code, message: error.message, blocking: true }];
}
