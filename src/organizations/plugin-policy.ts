/**
 * The one place that decides whether an organization's plugin choices allow an assistant: which
 * tools, prompt processor and connector an assistant uses, and the refusal (400
 * `plugin_disabled`, naming the plugin and where the metadata uses it) when the organization has
 * disabled one. Saving an assistant and starting a chat with one both ask here, and the studio's
 * catalogue leaves out what isEnabled says no to. Pure: the caller loads the disabled plugins
 * (organization-controls.ts).
 */
import { AppError } from '../errors/app-error.js';
import { assistantTypeOf, type AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { connectorNameOf, promptProcessorNameOf } from '../pipeline/assistant-plan.js';
import type { PluginKind } from './organization-controls-schemas.js';

/** The plugins an organization has disabled, by kind; everything else installed is enabled. */
export type DisabledPlugins = Readonly<Record<PluginKind, ReadonlySet<string>>>;

/** A plugin an assistant uses, and the metadata field that names it. */
export interface PluginUse {
  kind: PluginKind;
  name: string;
  path: string;
}

const KIND_NAMES: Record<PluginKind, string> = { tools: 'tool', connectors: 'connector', prompt_processors: 'prompt processor' };

export function isPluginEnabled(disabled: DisabledPlugins, kind: PluginKind, name: string): boolean {
  return !disabled[kind].has(name);
}

/**
 * Every plugin a run of the assistant would use: its enabled tool entries (a switched-off entry
 * runs nothing), a classic assistant's rag_processor, its prompt processor and its connector.
 * `canonicalToolName` maps an alias stored before saves canonicalized names to the tool's name.
 */
export function pluginsUsedBy(metadata: AssistantMetadata, canonicalToolName: (name: string) => string): PluginUse[] {
  const uses: PluginUse[] = [];
  (metadata.tools ?? []).forEach((entry, index) => {
    if (entry.enabled) uses.push({ kind: 'tools', name: canonicalToolName(entry.type), path: `metadata.tools[${index}].type` });
  });
  if (assistantTypeOf(metadata) === 'classic' && typeof metadata.rag_processor === 'string' && metadata.rag_processor !== '') {
    uses.push({ kind: 'tools', name: canonicalToolName(metadata.rag_processor), path: 'metadata.rag_processor' });
  }
  uses.push({ kind: 'prompt_processors', name: promptProcessorNameOf(metadata), path: 'metadata.prompt_processor' });
  uses.push({ kind: 'connectors', name: connectorNameOf(metadata), path: 'metadata.connector' });
  return uses;
}

/**
 * Throws 400 `plugin_disabled` naming the first disabled plugin the assistant uses (details list
 * them all); `moment` says whether the assistant is being saved or chatted with, for the message.
 */
export function requireEnabledPlugins(uses: readonly PluginUse[], disabled: DisabledPlugins, moment: 'save' | 'chat'): void {
  const refused = uses.filter((use) => !isPluginEnabled(disabled, use.kind, use.name));
  const first = refused[0];
  if (first === undefined) return;
  const names = refused.map((use) => `${KIND_NAMES[use.kind]} "${use.name}"`);
  const message =
    moment === 'save'
      ? `The ${names.join(', ')} ${refused.length === 1 ? 'is' : 'are'} disabled in this organization; an assistant using ${refused.length === 1 ? 'it' : 'them'} cannot be saved.`
      : `This assistant uses the ${names.join(', ')}, which this organization has disabled; ask its owner or an administrator.`;
  throw new AppError('plugin_disabled', message, {
    param: first.path,
    details: { plugins: refused.map((use) => ({ kind: use.kind, name: use.name, path: use.path })) },
  });
}
