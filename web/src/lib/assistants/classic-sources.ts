/**
 * What a classic assistant's rag_processor can read, by name: the knowledge bases, rubrics and
 * files the signed-in user may pick. A list the server refuses leaves its picker empty rather
 * than failing the whole form.
 */
import { listFiles, listKnowledgeBases, listRubrics } from '$lib/api/knowledge';

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

async function itemsOf<Row>(listing: Promise<Row[]>): Promise<Row[]> {
  try {
    return await listing;
  } catch {
    return [];
  }
}

/** Own rubrics and the organization's readable ones, each once. */
async function rubrics(): Promise<PickableItem[]> {
  const [mine, organization] = await Promise.all([itemsOf(listRubrics('mine')), itemsOf(listRubrics('organization'))]);
  const byId = new Map([...mine, ...organization].map((rubric) => [rubric.rubricId, { value: rubric.rubricId, name: rubric.title }]));
  return [...byId.values()];
}

export async function loadClassicSources(): Promise<ClassicSources> {
  const [knowledgeBases, rubricItems, files] = await Promise.all([itemsOf(listKnowledgeBases()), rubrics(), itemsOf(listFiles())]);
  return {
    knowledgeBases: knowledgeBases.map((base) => ({ value: String(base.id), name: base.name })),
    rubrics: rubricItems,
    files: files.map((file) => ({ value: file.file_path, name: file.name })),
  };
}
