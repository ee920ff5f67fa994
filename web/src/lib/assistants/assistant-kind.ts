/**
 * The one type badge an assistant gets in lists and previews: an orchestrator is a multi-tool
 * assistant that uses other assistants, as the server decides (`is_orchestrator`).
 */
import type { MessageKey } from '$lib/i18n/translate.svelte';

export type AssistantKind = 'classic' | 'multi-tool' | 'orchestrator';

export function kindOf(assistant: { assistant_type: 'classic' | 'multi_tool'; is_orchestrator: boolean }): AssistantKind {
  if (assistant.is_orchestrator) return 'orchestrator';
  return assistant.assistant_type === 'multi_tool' ? 'multi-tool' : 'classic';
}

export const kindLabel: Record<AssistantKind, MessageKey> = {
  classic: 'assistantList.typeClassic',
  'multi-tool': 'assistantList.typeMultiTool',
  orchestrator: 'assistantList.typeOrchestrator',
};
