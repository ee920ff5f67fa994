/**
 * What a picker offers: the teacher's knowledge bases, rubrics, files and the assistants this one
 * may call, each as the name to show and the id to store. Target assistants come from the server's
 * decision (GET /api/assistants/{id}/tool-candidates); a new assistant has no id yet, so the list
 * of assistants stands in, with the orchestrators among them marked unavailable (calls are one
 * level deep), and saving checks the rest.
 */
import { api } from '$lib/api/client';
import { hasConfiguration, type AssistantPage } from '$lib/api/assistant-types';
import { t } from '$lib/i18n/translate.svelte';
import { refusalReason } from './field-labels';
import type { PickerKind } from './schema-form';

export interface PickerOption {
  value: string;
  label: string;
  disabled: boolean;
}

interface Named {
  items: { id: number; name: string }[];
}

interface ToolCandidate {
  id: number;
  name: string;
  available: boolean;
  reason?: string;
}

function option(value: string | number, label: string): PickerOption {
  return { value: String(value), label, disabled: false };
}

function candidateOption(candidate: ToolCandidate): PickerOption {
  if (candidate.available) return option(candidate.id, candidate.name);
  return { value: String(candidate.id), label: refusalLabel(candidate.name, candidate.reason ?? 'not_permitted'), disabled: true };
}

function refusalLabel(name: string, reason: string): string {
  return t('toolsManager.unavailable', { name, reason: refusalReason(reason) });
}

async function assistantOptions(assistantId: number | undefined): Promise<PickerOption[]> {
  if (assistantId !== undefined) {
    const candidates = await api<{ items: ToolCandidate[] }>(`/api/assistants/${assistantId}/tool-candidates`);
    return candidates.items.map(candidateOption);
  }
  const page = await api<AssistantPage>('/api/assistants');
  return page.items.map((assistant) => {
    const orchestrator = hasConfiguration(assistant) && (assistant.metadata.tools ?? []).some((entry) => entry.type === 'assistant');
    return candidateOption({ id: assistant.id, name: assistant.name, available: !orchestrator, reason: 'orchestrator' });
  });
}

export async function pickerOptions(kind: PickerKind, assistantId: number | undefined): Promise<PickerOption[]> {
  if (kind === 'knowledge_bases') return (await api<Named>('/api/knowledge-bases')).items.map((base) => option(base.id, base.name));
  if (kind === 'rubric') {
    const rubrics = await api<{ items: { rubricId: string; title: string }[] }>('/api/rubrics');
    return rubrics.items.map((rubric) => option(rubric.rubricId, rubric.title));
  }
  if (kind === 'file') {
    const files = await api<{ items: { file_path: string; name: string }[] }>('/api/files');
    return files.items.map((file) => option(file.file_path, file.name));
  }
  return assistantOptions(assistantId);
}
