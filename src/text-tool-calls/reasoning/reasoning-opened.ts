/**
 * Reasoning the chat template opened before the model wrote anything (QwQ, DeepSeek R1 distills,
 * Qwen3 thinking models, Apriel, Nemotron 3…): the output starts inside the reasoning and only its
 * end marker (`</think>`, `[/THINK]`, Apriel's `[BEGIN FINAL RESPONSE]`…) appears. Three settings:
 *
 *  - `always`: everything up to the first end marker is reasoning. A model that writes the opening
 *    tag again anyway (`<think>` after the template's) has it dropped.
 *  - `never`: the output starts as the answer; end markers are text like any other.
 *  - `auto`: the parser decides from the output itself, within the first OPENING_CHARACTERS_MAXIMUM
 *    characters, which it holds back meanwhile: an end marker there with no opening before it means
 *    the template opened the reasoning. Which models get `auto`, and which `always` or `never`
 *    instead, is read from the model's name before parsing (reasoning-families.ts).
 *
 * Calls written inside reasoning are never executed, however the reasoning was opened: the block
 * below streams everything up to its end marker as reasoning and reads no calls.
 */
import type { BlockStep, ParserBlock } from '../blocks/parser-block.js';
import { OPENING_CHARACTERS_MAXIMUM, OPENING_WHITESPACE_MAXIMUM } from '../vocabulary/parser-limits.js';
import { StreamedBlock } from '../blocks/streamed-block.js';
import type { Terminator } from '../scanning/terminator-search.js';
import type { WorkCounter } from '../scanning/work-counter.js';

/** The markers that end reasoning a template opened, each family's own. */
export const REASONING_END_MARKERS: readonly string[] = [
  '</think>',
  '[/THINK]',
  '[BEGIN FINAL RESPONSE]',
  '</seed:think>',
  '<|END_THINKING|>',
  '◁/think▷',
];

/** Openings a model may write again at the start of reasoning its template already opened. */
const REPEATED_OPENINGS: readonly string[] = ['<think>', '[THINK]', '<seed:think>', '<|START_THINKING|>', '◁think▷'];

const END_TERMINATORS: readonly Terminator[] = REASONING_END_MARKERS.map((token) => ({ token, consumed: true }));

function isBlank(text: string): boolean {
  return text.trim() === '';
}

/**
 * The reasoning a template opened, from the first character of the output to its end marker. Its
 * first characters are held (at most a repeated opening and the blank space before it) until it is
 * clear whether the model wrote the opening again; everything else streams at once.
 */
export class TemplateOpenedReasoningBlock implements ParserBlock {
  readonly holdsText = false;
  private lead = '';
  private leadDecided = false;
  private readonly reasoning: StreamedBlock;

  constructor(counter: WorkCounter) {
    this.reasoning = new StreamedBlock('reasoning', END_TERMINATORS, counter);
  }

  get heldCharacters(): number {
    return this.lead.length + this.reasoning.heldCharacters;
  }

  consume(input: string, from: number, to: number, atEnd: boolean): BlockStep {
    if (this.leadDecided) return this.reasoning.consume(input, from, to, atEnd);
    const joined = this.lead + input.slice(from, to);
    const leadBefore = this.lead.length;
    const trimmed = joined.trimStart();
    const repeated = REPEATED_OPENINGS.find((opening) => trimmed.startsWith(opening));
    const stillPossible =
      repeated === undefined &&
      joined.length - trimmed.length <= OPENING_WHITESPACE_MAXIMUM &&
      (isBlank(joined) || REPEATED_OPENINGS.some((opening) => opening.startsWith(trimmed)));
    if (stillPossible && !atEnd) {
      this.lead = joined;
      return { events: [] };
    }
    this.leadDecided = true;
    this.lead = '';
    const start = repeated === undefined ? 0 : joined.length - trimmed.length + repeated.length;
    const step = this.reasoning.consume(joined, start, joined.length, atEnd);
    if (step.end === undefined) return step;
    // The rest after the end marker is an index into `joined`; point it back into the input.
    const { resumeAt, heldRest } = step.end;
    const end =
      resumeAt >= leadBefore
        ? { resumeAt: from + resumeAt - leadBefore, heldRest }
        : { resumeAt: from, heldRest: joined.slice(resumeAt, leadBefore) + heldRest };
    return { events: step.events, end };
  }

  release(): string {
    return this.lead + this.reasoning.release();
  }
}

/** Characters just before or after a marker that show it is being quoted, not used (`` `</think>` ``, "</think>"). */
const QUOTING = new Set(['`', '"', "'"]);
/** A character before a marker that shows it sits mid-sentence, mentioned in prose. */
const MID_SENTENCE = new Set([' ', '\t']);

const LONGEST_MARKER = Math.max(...REASONING_END_MARKERS.map((marker) => marker.length));

/** The output's first characters the decision looks at: the bound the parser already holds back. */
export const OPENED_REASONING_HEAD_CHARACTERS = OPENING_CHARACTERS_MAXIMUM;

export interface OpenedReasoningDecision {
  /** Where the end marker starts and where the answer after it starts. */
  markerAt: number;
  resumeAt: number;
}

/**
 * `auto` for a model not known to open reasoning: the output's first characters decide. Answers
 * the end marker that shows the template opened the reasoning, or undefined when the output starts
 * as an answer: no marker (with the character after it) within the first
 * OPENED_REASONING_HEAD_CHARACTERS, an opening of the model's own before it, a quoted marker, or
 * one mid-sentence after a space.
 * `head` is the output's start; `ended` when the output ends with it.
 */
export function findTemplateOpenedEnd(head: string, ended: boolean): OpenedReasoningDecision | undefined {
  let first: OpenedReasoningDecision | undefined;
  for (const marker of REASONING_END_MARKERS) {
    const index = head.indexOf(marker);
    if (index === -1) continue;
    const resumeAt = index + marker.length;
    // The character after the marker must be in view, unless the output ends right there.
    if (resumeAt >= head.length && !(ended && resumeAt === head.length)) continue;
    if (first === undefined || index < first.markerAt) first = { markerAt: index, resumeAt };
  }
  if (first === undefined) return undefined;
  const before = head.slice(0, first.markerAt);
  if (REPEATED_OPENINGS.some((opening) => before.includes(opening))) return undefined;
  if (QUOTING.has(head.charAt(first.markerAt - 1)) || QUOTING.has(head.charAt(first.resumeAt))) return undefined;
  // Reasoning runs up to its marker, or a line break does; prose puts a space before a tag it names ("write </think> here").
  if (MID_SENTENCE.has(head.charAt(first.markerAt - 1))) return undefined;
  return first;
}

/**
 * Whether the output's start already shows the model opened its reasoning itself (`<think>`): an
 * end marker can only follow that opening (no marker can straddle one), so the output starts as the
 * answer whatever follows, and the head need not wait for its whole window. Asked only when
 * `findTemplateOpenedEnd` found no decision in `head`.
 */
export function openedByTheModel(head: string): boolean {
  return REPEATED_OPENINGS.some((opening) => head.includes(opening));
}

/**
 * Whether a decision found in `head`, the start of a longer output, stands whatever follows: no
 * longer marker starting before it can still be completing.
 */
export function decidedEarly(head: string, decision: OpenedReasoningDecision): boolean {
  return head.length >= decision.markerAt + LONGEST_MARKER + 1;
}
