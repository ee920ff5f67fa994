/**
 * A template's content by kind (docs/templates.md): a prompt template keeps a system prompt and
 * a prompt template, a rubric template keeps a rubric's content in LAMB's rubric JSON without its
 * rubricId, checked by the rubrics' own rules (rubric-document.ts). Also the normalising of tags
 * and language, so what is stored, searched and filtered is spelled one way.
 */
import { AppError } from '../errors/app-error.js';
import { readRubricDraft, type RubricDraft } from '../rubrics/rubric-document.js';
import type { TEMPLATE_KINDS } from './template-schemas.js';

export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

/** A rubric's content without its id: what a rubric template keeps and fills a new rubric with. */
export type RubricContent = Omit<RubricDraft, 'rubricId'>;

export type TemplateContent = { system_prompt: string; prompt_template: string } | { rubric: RubricContent };

/** The content fields a request may carry; which of them are allowed depends on the kind. */
export interface ContentFields {
  system_prompt?: string;
  prompt_template?: string;
  rubric?: unknown;
}

const PROMPT_FIELDS = ['system_prompt', 'prompt_template'] as const;

function refuse(param: string, message: string): never {
  throw new AppError('invalid_body', message, { param });
}

/** Reads a rubric's content by LAMB's rules, naming problems under `rubric`; a rubricId sent is dropped. */
export function readRubricContent(value: unknown): RubricContent {
  const { rubricId: _ignored, ...content } = readRubricDraft(value, { strict: true, root: 'rubric' });
  return content;
}

/** The content of a stored rubric (LAMB's rubric JSON): its rubricId and timestamps dropped, read by the same rules. */
export function rubricContentOf(rubric: object): RubricContent {
  const { rubricId: _rubricId, metadata, ...rest } = rubric as Record<string, unknown>;
  const { createdAt: _createdAt, modifiedAt: _modifiedAt, ...kept } = (metadata ?? {}) as Record<string, unknown>;
  return readRubricContent({ ...rest, metadata: kept });
}

function promptContent(fields: ContentFields, current?: TemplateContent): TemplateContent {
  if (fields.rubric !== undefined) refuse('rubric', 'A prompt template has no "rubric"; send "system_prompt" and "prompt_template".');
  const before = current !== undefined && 'system_prompt' in current ? current : { system_prompt: '', prompt_template: '' };
  const content = {
    system_prompt: fields.system_prompt ?? before.system_prompt,
    prompt_template: fields.prompt_template ?? before.prompt_template,
  };
  if (content.system_prompt.trim() === '' && content.prompt_template.trim() === '') {
    refuse('system_prompt', 'A prompt template needs a "system_prompt" or a "prompt_template" that is not empty.');
  }
  return content;
}

function rubricTemplateContent(fields: ContentFields, current?: TemplateContent): TemplateContent {
  for (const field of PROMPT_FIELDS) {
    if (fields[field] !== undefined) refuse(field, `A rubric template has no "${field}"; send its content as "rubric".`);
  }
  if (fields.rubric !== undefined) return { rubric: readRubricContent(fields.rubric) };
  if (current !== undefined && 'rubric' in current) return current;
  return refuse('rubric', 'A rubric template needs a "rubric": its content in LAMB\'s rubric JSON.');
}

/**
 * The content of a template of `kind` from a request's fields, over `current` on an edit (a
 * field not sent keeps its value). A field of the other kind is a 400 naming it.
 */
export function readTemplateContent(kind: TemplateKind, fields: ContentFields, current?: TemplateContent): TemplateContent {
  return kind === 'prompt' ? promptContent(fields, current) : rubricTemplateContent(fields, current);
}

/** Whether an edit sends any content field. */
export function sendsContent(fields: ContentFields): boolean {
  return fields.system_prompt !== undefined || fields.prompt_template !== undefined || fields.rubric !== undefined;
}

/** Tags trimmed, lower-cased and each kept once, in the order sent. */
export function normalizedTags(tags: readonly string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((tag) => tag.trim().toLowerCase()).filter((tag) => tag !== ''))];
}

/** A language tag lower-cased, so `pt-BR` and `pt-br` are one language to the filter; null when not said. */
export function normalizedLanguage(language: string | null | undefined): string | null {
  return language === undefined || language === null ? null : language.toLowerCase();
}
