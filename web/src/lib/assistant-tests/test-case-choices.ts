/**
 * What the test case editor offers to choose from, read from the assistant itself: the knowledge
 * bases it reads (a classic one's rag_collections, a tool's `collections`) with their documents,
 * the files its tools read (`file_path`), the tools it has, and the rubrics the teacher may read.
 * A source or a tool a case already names stays choosable even when the assistant no longer has it.
 */
import type { Assistant } from '$lib/api/assistant-types';
import { listDocuments } from '$lib/api/knowledge-documents';
import { listFiles, listKnowledgeBases, listRubrics } from '$lib/api/knowledge';
import { t } from '$lib/i18n/translate.svelte';
import { sourceValue } from './test-case-draft';

/** A SelectField option, declared here so the linter sees its type (it cannot read the component's). */
export interface ChoiceOption {
  value: string;
  label: string;
  group?: string;
}

export interface TestCaseChoices {
  sources: ChoiceOption[];
  tools: string[];
  rubrics: ChoiceOption[];
}

/** Knowledge bases whose documents are listed; an assistant rarely reads more. */
const KNOWLEDGE_BASES_LISTED = 10;

export const noChoices: TestCaseChoices = { sources: [], tools: [], rubrics: [] };

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function knowledgeBaseIdsOf(assistant: Assistant): string[] {
  const fromTools = (assistant.metadata.tools ?? []).flatMap((tool) => stringsOf(tool.config['collections']));
  return [...new Set([...assistant.rag_collections, ...fromTools])];
}

function filePathsOf(assistant: Assistant): string[] {
  const fromTools = (assistant.metadata.tools ?? []).flatMap((tool) => stringsOf(tool.config['file_path']));
  return [...new Set([...stringsOf(assistant.metadata['file_path']), ...fromTools])];
}

function toolsOf(assistant: Assistant): string[] {
  return [...new Set((assistant.metadata.tools ?? []).map((tool) => tool.type))];
}

async function settled<T>(promise: Promise<T>, fallback: T): Promise<T> {
  try {
    return await promise;
  } catch {
    return fallback;
  }
}

const noDocuments: Awaited<ReturnType<typeof listDocuments>> = { items: [], total: 0 };

async function knowledgeSources(ids: string[]): Promise<ChoiceOption[]> {
  const names = new Map((await settled(listKnowledgeBases(), [])).map((base) => [String(base.id), base.name]));
  const listed = ids.slice(0, KNOWLEDGE_BASES_LISTED);
  const documents = await Promise.all(
    listed.map((id) => settled(/^\d{1,15}$/.test(id) ? listDocuments(Number(id)) : Promise.resolve(noDocuments), noDocuments)),
  );
  return listed.flatMap((id, index) => {
    const group = names.get(id) ?? id;
    const whole = { value: sourceValue({ knowledge_base_id: id }), label: t('assistantTests.anyDocumentOf', { name: group }), group };
    const each = (documents[index]?.items ?? []).map((document) => ({
      value: sourceValue({ knowledge_base_id: id, document_id: String(document.id) }),
      label: document.file_name,
      group,
    }));
    return [whole, ...each];
  });
}

async function fileSources(paths: string[]): Promise<ChoiceOption[]> {
  if (paths.length === 0) return [];
  const names = new Map((await settled(listFiles(), [])).map((file) => [file.file_path, file.name]));
  const group = t('assistantTests.filesGroup');
  return paths.map((path) => ({ value: sourceValue({ file_path: path }), label: names.get(path) ?? path, group }));
}

export async function loadTestCaseChoices(assistant: Assistant): Promise<TestCaseChoices> {
  const [knowledge, files, rubrics] = await Promise.all([
    knowledgeSources(knowledgeBaseIdsOf(assistant)),
    fileSources(filePathsOf(assistant)),
    settled(listRubrics(), []),
  ]);
  return {
    sources: [...knowledge, ...files],
    tools: toolsOf(assistant),
    rubrics: rubrics.map((rubric) => ({ value: rubric.rubricId, label: rubric.title })),
  };
}

/** The options with the chosen value added when it is not among them (a case written earlier). */
export function withChosen(options: ChoiceOption[], chosen: string, label: string): ChoiceOption[] {
  if (chosen === '' || options.some((option) => option.value === chosen)) return options;
  return [...options, { value: chosen, label }];
}
