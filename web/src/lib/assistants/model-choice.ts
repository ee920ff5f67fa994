/**
 * The model picker's options: the models each provider itself serves (GET /api/models), grouped
 * under the connector, each option naming both (one select sets metadata.connector and
 * metadata.llm together). Only the organization's allowed models are offered, its default marked;
 * a provider that gave no list shows one disabled option with its reason. A stored model the list
 * does not name is offered too, so opening an assistant never changes its model silently.
 */
import type { ModelList, ProviderModels } from '$lib/api/models';
import type { SelectOption } from '$lib/components/SelectField.svelte';
import { t } from '$lib/i18n/translate.svelte';

/** Connector names hold no slash; model names may ("org/model"), so only the first one separates. */
export function modelChoiceOf(connector: string, model: string): string {
  return `${connector}/${model}`;
}

export function splitModelChoice(choice: string): { connector: string; model: string } {
  const slash = choice.indexOf('/');
  return { connector: choice.slice(0, slash), model: choice.slice(slash + 1) };
}

/** Why a provider is unavailable, in the reader's language. */
export function unavailableReason(provider: ProviderModels): string {
  switch (provider.reason) {
    case 'no_key':
      return t('modelList.reason_no_key');
    case 'timeout':
      return t('modelList.reason_timeout');
    case 'key_rejected':
      return t('modelList.reason_key_rejected');
    case 'provider_error':
      return t('modelList.reason_provider_error');
    case 'malformed_answer':
      return t('modelList.reason_malformed_answer');
    case 'address_refused':
      return t('modelList.reason_address_refused');
    default:
      return t('modelList.reason_unreachable');
  }
}

/** A SelectOption, declared here so the linter sees its type (it cannot read the component's). */
interface ModelOption {
  value: string;
  label: string;
  group: string;
  disabled?: boolean;
}

function providerOptions(provider: ProviderModels): ModelOption[] {
  const group = provider.connector;
  if (!provider.available)
    return [
      { value: `${group}/`, label: t('modelList.unavailableOption', { reason: unavailableReason(provider) }), group, disabled: true },
    ];
  return provider.models
    .filter((model) => model.allowed)
    .map((model) => ({
      value: model.choice,
      label: model.default ? t('modelList.defaultModel', { model: model.id }) : model.id,
      group,
    }));
}

export function modelOptions(list: ModelList | undefined, connector: string, model: string): SelectOption[] {
  const options: ModelOption[] = (list?.providers ?? []).flatMap(providerOptions);
  const current = modelChoiceOf(connector, model);
  if (connector && model && !options.some((option) => option.value === current))
    options.push({ value: current, label: list === undefined ? model : t('modelList.notListed', { model }), group: connector });
  return options;
}
