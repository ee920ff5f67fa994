/**
 * A call that ends at a closing token (`</tool_call>`, `<|call|>`, a closing code fence…). It holds
 * everything it receives, and when the token arrives hands the body between opening and token to
 * its format's parser; a body that is no valid call is released exactly as written.
 */
import type { BlockStep, ParserBlock } from './parser-block.js';
import { TerminatorSearch, type QuietZone, type Terminator } from '../scanning/terminator-search.js';
import type { TextParserEvent } from '../vocabulary/text-tool-call-types.js';
import type { WorkCounter } from '../scanning/work-counter.js';

/**
 * `closed`: the block's own closing token; `interrupted`: the next opening arrived first (the model
 * forgot to close); `end-of-text`: the text ended first.
 */
export type BlockEnding = 'closed' | 'interrupted' | 'end-of-text';

/** Answers the events for a body, or undefined when it is no valid call and must stay text. */
export type DelimitedBodyParser = (body: string, ending: BlockEnding) => TextParserEvent[] | undefined;

export interface DelimitedCallShape {
  /** The opening as the syntax read it; the search for a terminator starts after it. */
  opening: string;
  /** Where, inside the opening, the body handed to the parser starts. */
  bodyOffset: number;
  terminators: readonly Terminator[];
  /** Where the terminators are data (a value quoting the call's tags); absent: nowhere. */
  quietZone?: QuietZone;
  parseBody: DelimitedBodyParser;
}

export class DelimitedCallBlock implements ParserBlock {
  readonly holdsText = true;
  heldCharacters: number;
  private readonly pieces: string[];
  private readonly search: TerminatorSearch;

  constructor(
    private readonly shape: DelimitedCallShape,
    private readonly counter: WorkCounter,
  ) {
    this.pieces = [shape.opening];
    this.heldCharacters = shape.opening.length;
    this.search = new TerminatorSearch(shape.terminators, counter, shape.quietZone);
  }

  consume(input: string, from: number, to: number, atEnd: boolean): BlockStep {
    const piece = input.slice(from, to);
    const bodyBefore = this.heldCharacters - this.shape.opening.length;
    const match = piece.length > 0 ? this.search.feed(piece) : undefined;
    if (match === undefined) {
      this.keep(piece);
      if (!atEnd) return { events: [] };
      return this.finish(this.heldCharacters, 0, 'end-of-text', to);
    }
    const terminatorLength = match.terminator.consumed ? match.terminator.token.length : 0;
    // Of this piece, only what comes before the block's end belongs to the block.
    const used = Math.max(0, match.offset + terminatorLength - bodyBefore);
    this.keep(piece.slice(0, used));
    const ending = match.terminator.consumed ? 'closed' : 'interrupted';
    return this.finish(this.shape.opening.length + match.offset, terminatorLength, ending, from + used);
  }

  release(): string {
    return this.pieces.join('');
  }

  private keep(piece: string): void {
    this.pieces.push(piece);
    this.heldCharacters += piece.length;
  }

  private finish(bodyEnd: number, terminatorLength: number, ending: BlockEnding, resumeAt: number): BlockStep {
    const whole = this.pieces.join('');
    const end = bodyEnd + terminatorLength;
    const body = whole.slice(this.shape.bodyOffset, bodyEnd);
    this.counter.add(body.length);
    const events = this.shape.parseBody(body, ending) ?? [{ type: 'text', text: whole.slice(0, end) }];
    return { events, end: { resumeAt, heldRest: whole.slice(end) } };
  }
}
