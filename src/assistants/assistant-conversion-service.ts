/**
 * Converting a classic assistant into a multi-tool one (DESIGN §1, classic-conversion.ts): a dry
 * run that shows what the new assistant would get, and the conversion itself, which creates a new
 * assistant owned by the caller and leaves the classic one as it was. The permission module
 * decides who may convert; the converted metadata is checked against the installed plugins as any
 * save is, and the new assistant is written with its audit entry in the same transaction.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireAssistantConversion } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { convertClassicAssistant, type ConvertibleTool } from '../pipeline/classic-conversion.js';
import type { AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import { findAssistant } from '../store/assistants-repository.js';
import type { Database } from '../store/schema.js';
import { insertAssistantRecord, storableMetadata } from './assistant-records.js';
import { assistantFacts, snapshotOf, splitCollections, type AssistantView } from './assistant-view.js';

/** What a dry run of a conversion shows: what the new assistant would get, and 001 §10.7's log line. */
export interface ConversionPreview {
  metadata: AssistantMetadata;
  prompt_template: string;
  log: string;
}

/** The name schema's limit (assistant-schemas.ts): a converted assistant's name is cut to fit it. */
const NAME_LENGTH_MAXIMUM = 200;
const CONVERTED_NAME_SUFFIX = ' (multi-tool)';

/** "<name> (multi-tool)", the name shortened (never the suffix) so the whole fits the name limit. */
function convertedName(name: string): string {
  const room = NAME_LENGTH_MAXIMUM - CONVERTED_NAME_SUFFIX.length;
  // Counted in code points, as the name schema's maxLength counts, so a cut never splits a surrogate pair.
  const characters = Array.from(name);
  const kept = characters.length > room ? characters.slice(0, room).join('').trimEnd() : name;
  return `${kept}${CONVERTED_NAME_SUFFIX}`;
}

export class AssistantConversionService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly registries: Registries,
  ) {}

  /** The conversion of a stored classic assistant, checked against the plugins as any save is; nothing is written. */
  private async conversionOf(context: CallContext, id: number) {
    const record = await findAssistant(this.db, id, context.identity.userId);
    if (!record) throw new AppError('not_found', 'Assistant not found.');
    requireAssistantConversion(context.identity, assistantFacts(record));
    const findTool = (name: string): ConvertibleTool | undefined => {
      const definition = this.registries.tools.get(name);
      if (!definition) return undefined;
      return { name: definition.name, placeholder: definition.placeholder, runsBeforehand: definition.provide !== undefined };
    };
    const conversion = convertClassicAssistant(snapshotOf(record), findTool, record.owner_email);
    return { record, conversion: { ...conversion, metadata: this.convertedMetadata(conversion.metadata) } };
  }

  /** A classic assistant may hold what its tool would refuse (a simple_rag without collections); the conversion then names it. */
  private convertedMetadata(metadata: AssistantMetadata): AssistantMetadata {
    try {
      return storableMetadata(metadata, this.registries);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'invalid_metadata') throw error;
      throw new AppError('assistant_not_convertible', `The converted assistant would be refused: ${error.message}`, {
        details: error.details,
      });
    }
  }

  /** Dry run of a classic → multi-tool conversion (DESIGN §1): what `convert` would create. */
  async previewConversion(context: CallContext, id: number): Promise<ConversionPreview> {
    const { conversion } = await this.conversionOf(context, id);
    return { metadata: conversion.metadata, prompt_template: conversion.promptTemplate, log: conversion.log };
  }

  /**
   * Creates a new multi-tool assistant from a classic one, owned by the caller and named
   * "<name> (multi-tool)"; the classic assistant is left exactly as it was. Audited on the new
   * assistant as `assistant.convert`, with the classic assistant's id.
   */
  async convert(context: CallContext, id: number): Promise<AssistantView> {
    const { record, conversion } = await this.conversionOf(context, id);
    return insertAssistantRecord(
      this.db,
      context,
      {
        name: convertedName(record.name),
        description: record.description,
        systemPrompt: record.system_prompt,
        promptTemplate: conversion.promptTemplate,
        metadata: conversion.metadata,
        ragCollections: splitCollections(record.rag_collections),
        ragTopK: record.rag_top_k,
      },
      { action: 'assistant.convert', details: { converted_from: record.id } },
    );
  }
}
