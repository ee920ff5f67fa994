/**
 * Which placeholders a multi-tool prompt template uses, which enabled tool fills each, and what is
 * wrong: a `{name}` in the template that nothing fills reaches the model as written, and an enabled
 * context tool whose placeholder the template lacks does its work for nothing. Placeholders are
 * written as the server reads them (src/pipeline/templates/template-rendering.ts): `{` a lower-case name `}`.
 */

const PLACEHOLDER_PATTERN = /\{([a-z][a-z0-9_]*)\}/g;

/** What the prompt processor fills by itself: `{user_input}` always; moodle_augment adds `{moodle_user}`. */
export function builtInPlaceholders(promptProcessor: string | undefined): string[] {
  return promptProcessor === 'moodle_augment' ? ['user_input', 'moodle_user'] : ['user_input'];
}

/** A tool entry as the analysis needs it. `placeholder` is the one it fills, undefined for a function tool. */
export interface PlaceholderTool {
  label: string;
  enabled: boolean;
  placeholder: string | undefined;
}

export interface PlaceholderUse {
  name: string;
  inTemplate: boolean;
  builtIn: boolean;
  /** The labels of the enabled tools that fill it. */
  filledBy: string[];
}

export type PlaceholderWarning =
  { kind: 'unfilled'; placeholder: string } | { kind: 'missing_from_template'; placeholder: string; tool: string };

export interface PlaceholderAnalysis {
  placeholders: PlaceholderUse[];
  warnings: PlaceholderWarning[];
}

/** The placeholders a template names, each once, in the order they first appear. */
export function templatePlaceholders(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER_PATTERN)].map((match) => match[1] ?? ''))];
}

/** The placeholder an entry fills: its config's `placeholder` when it names one, else the tool's default. */
export function effectivePlaceholder(config: Record<string, unknown>, toolDefault: string | null | undefined): string | undefined {
  const chosen = config['placeholder'];
  if (typeof chosen === 'string' && chosen.trim() !== '') return chosen.trim();
  return toolDefault ?? undefined;
}

/**
 * Every placeholder of the template, the enabled tools and the built-ins, with the warnings. A blank
 * template warns of nothing: the server then writes one section per tool output by itself.
 */
export function analysePlaceholders(template: string, tools: readonly PlaceholderTool[], builtIns: readonly string[]): PlaceholderAnalysis {
  const used = templatePlaceholders(template);
  const enabled = tools.filter((tool) => tool.enabled && tool.placeholder !== undefined);
  const names = [...new Set([...builtIns, ...used, ...enabled.map((tool) => tool.placeholder ?? '')])];
  const placeholders = names.map((name) => ({
    name,
    inTemplate: used.includes(name),
    builtIn: builtIns.includes(name),
    filledBy: enabled.filter((tool) => tool.placeholder === name).map((tool) => tool.label),
  }));
  if (template.trim() === '') return { placeholders, warnings: [] };
  const unfilled: PlaceholderWarning[] = placeholders
    .filter((use) => use.inTemplate && !use.builtIn && use.filledBy.length === 0)
    .map((use) => ({ kind: 'unfilled', placeholder: use.name }));
  const missing: PlaceholderWarning[] = enabled
    .filter((tool) => !used.includes(tool.placeholder ?? ''))
    .map((tool) => ({ kind: 'missing_from_template', placeholder: tool.placeholder ?? '', tool: tool.label }));
  return { placeholders, warnings: [...unfilled, ...missing] };
}
