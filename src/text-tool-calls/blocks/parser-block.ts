/**
 * The two shapes every format plugs into the parser: an opening syntax, which decides from the first
 * characters whether a call (or a reasoning block) starts here, and the block it opens, which
 * consumes the text that follows until its end.
 *
 * Blocks read the input by index (`from`, `to`) and keep only what belongs to them, so one large
 * push holding many calls is never copied once per call.
 */
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import type { TextParserEvent, TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';
import type { WorkCounter } from '../scanning/work-counter.js';

export interface BlockEnd {
  /** Where in the input the text after the block resumes. */
  resumeAt: number;
  /** Characters received earlier that turned out to follow the block's end: scanned again first. */
  heldRest: string;
}

export interface BlockStep {
  events: TextParserEvent[];
  /** Set once the block has ended. */
  end?: BlockEnd;
}

export interface ParserBlock {
  /** A call holds its text back until it ends; reasoning and Harmony's answer channels stream it. */
  readonly holdsText: boolean;
  /** Characters received but not yet emitted. */
  readonly heldCharacters: number;
  /** Takes `input[from, to)`; `atEnd` when nothing follows, and then the block must end. */
  consume(input: string, from: number, to: number, atEnd: boolean): BlockStep;
  /** The held text exactly as received, for a call that grew past CALL_CHARACTERS_MAXIMUM. */
  release(): string;
}

export interface OpeningContext {
  tools: OfferedToolSet;
  counter: WorkCounter;
  /** Only whitespace was emitted since the start or since the last call or reasoning block. */
  atSegmentStart: boolean;
  /** Only whitespace was emitted since the last call (none yet: false). */
  afterCall: boolean;
  /** The code of the last character emitted as text (NO_TEXT after a call or reasoning). */
  lastTextCode: number;
  /** Whether the configured setting lets this format through (`auto` lets all through). */
  accepts(format: TextToolCallFormat): boolean;
}

export interface Opening {
  /** Characters of the opening the block took; the parser feeds it the text after them. */
  length: number;
  block: ParserBlock;
}

export interface OpeningSyntax {
  /** The characters an opening of this syntax can start with. */
  readonly triggers: string;
  /**
   * The literal tokens the opening starts with, when it does (`<tool_call>`): the parser rules the
   * syntax out without asking it when none is there. `open` reads the token itself all the same.
   */
  readonly prefixes?: readonly string[];
  /**
   * A repair that only ever applies right after a call (`context.afterCall`): its trigger characters
   * are looked for only then, so prose is scanned as fast as without it.
   */
  readonly onlyAfterCall?: boolean;
  /**
   * An opening that only ever starts a segment (`context.atSegmentStart`: the start of the answer, or
   * right after a call or reasoning): its trigger characters are looked for only then.
   */
  readonly onlyAtSegmentStart?: boolean;
  /** The formats it produces; `reasoning` for blocks that are not calls and run in every setting. */
  readonly formats: readonly TextToolCallFormat[] | 'reasoning';
  /**
   * Active only when the setting names one of its formats, never in `auto`: for openings too
   * ordinary to be told from prose (a bare tool name at the start of the answer, Gemma 4's bare `call:`).
   */
  readonly namedOnly?: boolean;
  /**
   * Reads from the reader's start; answers the opening, or undefined when this is not one.
   * Throws NEED_MORE_TEXT when the characters so far cannot decide.
   */
  open(reader: OpeningReader, context: OpeningContext): Opening | undefined;
}

/** The text an opening covers, as its block keeps it. */
export function openingText(reader: OpeningReader): string {
  return reader.text.slice(reader.start, reader.position);
}
