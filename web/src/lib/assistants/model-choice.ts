/**
 * The model picker's options: every connector's models grouped under the connector, each option
 * naming both (one select sets metadata.connector and metadata.llm together). A stored model the
 * list does not name is offered too, so opening an assistant never changes its model silently.
 */
import type { SelectOption } from '$lib/components/SelectField.svelte';
import type { CompletionsCatalogue } from './completions-catalogue';

/** Connector names hold no slash; model names may ("org/model"), so only the first one separates. */
export function modelChoiceOf(connector: string, model: string): string {
  return `${connector}/${model}`;
}

export function splitModelChoice(choice: string): { connector: string; model: string } {
  const slash = choice.indexOf('/');
  return { connector: choice.slice(0, slash), model: choice.slice(slash + 1) };
}

export function modelOptions(catalogue: CompletionsCatalogue, connector: string, model: string): SelectOption[] {
  const options = Object.entries(catalogue.connectors).flatMap(([name, entry]) =>
    entry.models.map((listed) => ({ value: modelChoiceOf(name, listed), label: listed, group: name })),
  );
  const current = modelChoiceOf(connector, model);
  if (connector && model && !options.some((option) => option.value === current))
    options.push({ value: current, label: model, group: connector });
  return options;
}
