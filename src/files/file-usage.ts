/**
 * Which assistants use a file: those whose single-file tools name its file_path (the same
 * reading of metadata as the save-time check, assistant-file-references.ts). The files page shows
 * them and deleting a file in use asks for confirmation. A caller sees only the assistants the
 * permission module lets them view; the others are counted, never named.
 */
import type { Kysely } from 'kysely';
import type { Identity } from '../auth/identity.js';
import { decideAssistant } from '../auth/permissions.js';
import { singleFileReferences } from '../assistants/assistant-file-references.js';
import { assistantFacts } from '../assistants/assistant-view.js';
import type { AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { findAssistant } from '../store/assistants-repository.js';
import { liveAssistantsWithMetadataContaining } from '../store/file-usage-repository.js';
import type { Database } from '../store/schema.js';
import type { FileUsageView } from './file-schemas.js';

/** The ids of the live assistants whose single-file tools name `filePath`, lowest first. */
export async function assistantIdsUsingFile(db: Kysely<Database>, filePath: string): Promise<number[]> {
  // The path is stored JSON-encoded inside the metadata, so that is what the coarse filter looks for.
  const candidates = await liveAssistantsWithMetadataContaining(db, JSON.stringify(filePath));
  return candidates
    .filter((candidate) =>
      singleFileReferences(JSON.parse(candidate.metadata) as AssistantMetadata).some((reference) => reference.filePath === filePath),
    )
    .map((candidate) => candidate.id);
}

/** The assistants using `filePath` that `identity` may view, and how many others use it. */
export async function fileUsageOf(db: Kysely<Database>, identity: Identity, filePath: string): Promise<FileUsageView> {
  const assistants: FileUsageView['assistants'] = [];
  let hidden = 0;
  for (const id of await assistantIdsUsingFile(db, filePath)) {
    const record = await findAssistant(db, id, identity.userId);
    if (record && decideAssistant(identity, assistantFacts(record), 'view').allowed) {
      assistants.push({ id: record.id, name: record.name, owner: record.owner_email });
    } else {
      hidden += 1;
    }
  }
  return { assistants, hidden_count: hidden };
}
