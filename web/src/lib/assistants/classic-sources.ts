/**
 * What a classic assistant's rag_processor can read, by name: the knowledge bases, rubrics and
 * files the signed-in user may pick. A list the server refuses leaves its picker empty rather
 * than failing the whole form.
 */
import { api } from '$lib/api/client';

export interface PickableItem {
  /** The value stored in the assistant (a collection id, rubricId or file_path). */
  value: string;
  name: string;
}

export interface ClassicSources {
  knowledgeBases: PickableItem[];
  rubrics: PickableItem[];
  files: PickableItem[];
}

interface KnowledgeBaseRow {
  id: number;
  name: string;
}

interface RubricRow {
  rubricId: string;
  title: string;
}

interface FileRow {
  file_path: string;
  name: string;
}

async function itemsOf<Row>(path: string): Promise<Row[]> {
  try {
    return (await api<{ items: Row[] }>(path)).items;
  } catch {
    return [];
  }
}

/** Own rubrics and the organization's readable ones, each once. */
async function rubrics(): Promise<PickableItem[]> {
  const [mine, organization] = await Promise.all([
    itemsOf<RubricRow>('/api/rubrics?scope=mine'),
    itemsOf<RubricRow>('/api/rubrics?scope=organization'),
  ]);
  const byId = new Map([...mine, ...organization].map((rubric) => [rubric.rubricId, { value: rubric.rubricId, name: rubric.title }]));
  return [...byId.values()];
}

export async function loadClassicSources(): Promise<ClassicSources> {
  const [knowledgeBases, rubricItems, files] = await Promise.all([
    itemsOf<KnowledgeBaseRow>('/api/knowledge-bases'),
    rubrics(),
    itemsOf<FileRow>('/api/files'),
  ]);
  return {
    knowledgeBases: knowledgeBases.map((base) => ({ value: String(base.id), name: base.name })),
    rubrics: rubricItems,
    files: files.map((file) => ({ value: file.file_path, name: file.name })),
  };
}
