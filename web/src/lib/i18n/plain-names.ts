/**
 * Plain words for the server's internal names, so teachers and learners never read
 * `multi_augment`, `simple_rag` or "orchestrator" on screen: prompt processors, tools and tool
 * steps get a label from the catalogue's studio area when it has one, else the name the server
 * gave them. The internal names stay the values that are stored and sent.
 */
import { t, type MessageKey } from './translate.svelte';

function translatedOr(key: string, fallback: string): string {
  const text = t(key as MessageKey);
  return text === key ? fallback : text;
}

/** `multi_augment` → "Each tool fills its own placeholder". */
export function processorLabel(name: string): string {
  return translatedOr(`studio.processor_${name}`, name);
}

/** A tool's name as people read it: the plain label, else its display name from the catalogue. */
export function toolLabel(name: string, displayName: string): string {
  return translatedOr(`studio.tool_${name}`, displayName);
}

/** A tool step of an answer: the plain label of its tool, else its display name, else the tool. */
export function stepLabel(tool: string, displayName: string | null | undefined): string {
  return translatedOr(`studio.step_${tool}`, toolLabel(tool, displayName ?? tool));
}
