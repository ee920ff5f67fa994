/**
 * What a picker offers: the teacher's knowledge bases, rubrics, files and the assistants this one
 * may call, each as the name to show and the id to store. Target assistants come from the server's
 * decision (GET /api/assistants/{id}/tool-candidates); a new assistant has no id yet, so the list
 * of assistants stands in, with the orchestrators among them marked unavailable (calls are one
 * level deep), and saving checks the rest.
 */
import { listAssistants, listToolCandidates, type ToolCandidate } from '$lib/api/assistants';
import { listFiles, listKnowledgeBases, listRubrics } from '$lib/api/knowledge';
import { hasConfiguration } from '$lib/api/assistant-types';
import { t } from '$lib/i18n/translate.svelte';
import { refusalReason } from './field-labels';
import type { PickerKind } from './schema-form';

export interface PickerOption {
  value: string;
  label: string;
  disabled: boolean;
}

function option(value: string | number, label: string): PickerOption {
  return { value: String(value), label, disabled: false };
}

/** A candidate as the picker shows it: only its id, name and availability matter (the list of assistants builds them too). */
function candidateOption(candidate: Pick<ToolCandidate, 'id' | 'name' | 'available' | 'reason'>): PickerOption {
  if (candidate.available) return option(candidate.id, candidate.name);
  return { value: String(candidate.id), label: refusalLabel(candidate.name, candidate.reason ?? 'not_permitted'), disabled: true };
}

function refusalLabel(name: string, reason: string): string {
  return t('toolsManager.unavailable', { name, reason: refusalReason(reason) });
}

async function assistantOptions(assistantId: number | undefined): Promise<PickerOption[]> {
  if (assistantId !== undefined) {
    return (await listToolCandidates(assistantId)).map(candidateOption);
  }
  const page = await listAssistants();
  return page.items.map((assistant) => {
    const orchestrator = hasConfiguration(assistant) && (assistant.metadata.tools ?? []).some((entry) => entry.type === 'assistant');
    return candidateOption({ id: assistant.id, name: assistant.name, available: !orchestrator, reason: 'orchestrator' });
  });
}

/** The teacher's own rubrics, then the organization's shared ones they may use, each once. */
async function rubricOptions(): Promise<PickerOption[]> {
  const [mine, shared] = await Promise.all([listRubrics('mine'), listRubrics('organization')]);
  const seen = new Set<string>();
  return [...mine, ...shared]
    .filter((rubric) => !seen.has(rubric.rubricId) && seen.add(rubric.rubricId))
    .map((rubric) => option(rubric.rubricId, rubric.title));
}

export async function pickerOptions(kind: PickerKind, assistantId: number | undefined): Promise<PickerOption[]> {
  if (kind === 'knowledge_bases') return (await listKnowledgeBases()).map((base) => option(base.id, base.name));
  if (kind === 'rubric') return rubricOptions();
  if (kind === 'file') {
    return (await listFiles()).map((file) => option(file.file_path, file.name));
  }
  return assistantOptions(assistantId);
}
