/**
 * The files an assistant's single-file tools name, and the save-time check that each is a file
 * the assistant's owner may read (issue 30): without it, `/etc/passwd` or another teacher's file
 * was stored and refused only at chat time. The files service answers "may this owner read this
 * path" through the permission module; this module only finds the paths and words the refusal.
 */
import type { Identity } from '../auth/identity.js';
import { AppError } from '../errors/app-error.js';
import type { AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import type { FieldProblem } from '../validation/json-schema-problems.js';

const SINGLE_FILE_TOOL = 'single_file_rag';

/** Answers whether `owner` may read the live file `filePath` names; false for a path that is not one of ours. */
export type FileReadCheck = (owner: Identity, filePath: string) => Promise<boolean>;

/** One place in the metadata that names a file, and the file_path it names. */
export interface FileReference {
  path: string;
  filePath: string;
}

/**
 * Every file_path a single-file tool would read: each single_file_rag tool's config (enabled or
 * not, as a disabled tool is one toggle away from running), and a classic assistant's top-level
 * `file_path` when its rag processor is the single-file tool.
 */
export function singleFileReferences(metadata: Pick<AssistantMetadata, 'tools' | 'rag_processor' | 'file_path'>): FileReference[] {
  const references: FileReference[] = [];
  if (metadata.rag_processor === SINGLE_FILE_TOOL && typeof metadata.file_path === 'string' && metadata.file_path !== '') {
    references.push({ path: 'metadata.file_path', filePath: metadata.file_path });
  }
  (metadata.tools ?? []).forEach((tool, index) => {
    const filePath = tool.config.file_path;
    if (tool.type === SINGLE_FILE_TOOL && typeof filePath === 'string') {
      references.push({ path: `metadata.tools[${index}].config.file_path`, filePath });
    }
  });
  return references;
}

/**
 * Throws 400 `invalid_metadata` (param: the first refused path, details.errors: every one) unless
 * `owner` may read every file the metadata's single-file tools name. A missing file and another
 * owner's file get the same words, so the refusal never tells which paths exist.
 */
export async function requireReadableFiles(metadata: AssistantMetadata, owner: Identity, mayRead: FileReadCheck): Promise<void> {
  const problems: FieldProblem[] = [];
  for (const reference of singleFileReferences(metadata)) {
    if (await mayRead(owner, reference.filePath)) continue;
    problems.push({
      path: reference.path,
      message: `${reference.path} does not name a file that this assistant's owner (${owner.email}) may read: use the file_path the files API answered with for one of their uploaded files.`,
    });
  }
  const first = problems[0];
  if (first) throw new AppError('invalid_metadata', first.message, { param: first.path, details: { errors: problems } });
}
