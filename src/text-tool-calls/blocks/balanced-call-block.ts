/**
 * A call whose end is the end of a bracketed value: a bare JSON object or array
 * (`[{"name": …}]`, `functools[…]`, `[TOOL_CALLS]name[ARGS]{…}`) or a pythonic list. It holds what it
 * receives until the value closes; Llama 3 may chain several objects with `;`, so when asked the
 * block looks past the value for `; {` before it ends.
 */
import { isWhitespaceCode } from '../scanning/opening-reader.js';
import type { BlockStep, ParserBlock } from './parser-block.js';
import type { TextParserEvent } from '../vocabulary/text-tool-call-types.js';
import { NOT_A_VALUE, STILL_OPEN, type ValueScanner } from '../scanning/value-scanner.js';
import type { WorkCounter } from '../scanning/work-counter.js';

export interface BalancedCallShape {
  opening: string;
  /** Where, inside the opening, the value starts (its opening bracket or whitespace before it). */
  valueOffset: number;
  createScanner: () => ValueScanner;
  /** Llama 3 JSON: `{…}; {…}` is one block of several calls. */
  chained: boolean;
  /** Answers the events for the values, or undefined when they are no valid calls and must stay text. */
  parseValues: (values: readonly string[]) => TextParserEvent[] | undefined;
}

type ScanState = 'value' | 'after-value' | 'after-separator';

const SEMICOLON = 0x3b;
const OPEN_BRACE = 0x7b;

export class BalancedCallBlock implements ParserBlock {
  readonly holdsText = true;
  heldCharacters = 0;
  private readonly pieces: string[] = [];
  private scanner: ValueScanner;
  private state: ScanState = 'value';
  /** Offsets in the held text: where the current value started, and the spans of finished values. */
  private valueStart: number;
  private readonly values: Array<[number, number]> = [];
  /** Offset in the held text where the block ends, once known. */
  private endsAt: number | undefined;
  private failed = false;

  constructor(
    private readonly shape: BalancedCallShape,
    private readonly counter: WorkCounter,
  ) {
    this.scanner = shape.createScanner();
    this.valueStart = shape.valueOffset;
    this.pieces.push(shape.opening);
    this.heldCharacters = shape.opening.length;
    this.endsAt = this.scan(shape.opening, shape.valueOffset, shape.opening.length, 0);
  }

  consume(input: string, from: number, to: number, atEnd: boolean): BlockStep {
    const heldBefore = this.heldCharacters;
    if (this.endsAt === undefined) this.endsAt = this.scan(input, from, to, heldBefore - from);
    if (this.endsAt !== undefined) {
      // Of this input, only what comes before the block's end belongs to the block.
      const used = Math.max(0, this.endsAt - heldBefore);
      this.keep(input.slice(from, from + used));
      return this.finish(this.endsAt, from + used);
    }
    this.keep(input.slice(from, to));
    if (!atEnd) return { events: [] };
    // A value still open at the end was cut off: no call, the text stays as written.
    if (this.state === 'value') return this.finish(this.heldCharacters, to, true);
    return this.finish(this.values.at(-1)![1], to);
  }

  release(): string {
    return this.pieces.join('');
  }

  private keep(piece: string): void {
    this.pieces.push(piece);
    this.heldCharacters += piece.length;
  }

  /**
   * Scans `text[from, to)`, whose offsets become held-text offsets by adding `base`; answers the
   * held-text offset where the block ends, once known.
   */
  private scan(text: string, from: number, to: number, base: number): number | undefined {
    let index = from;
    while (index < to) {
      if (this.state === 'value') {
        const end = this.scanner.scan(text, index, to);
        if (end === STILL_OPEN) return undefined;
        if (end === NOT_A_VALUE) {
          this.failed = true;
          return base + index;
        }
        this.values.push([this.valueStart, base + end]);
        if (!this.shape.chained) return base + end;
        this.state = 'after-value';
        index = end;
        continue;
      }
      const code = text.charCodeAt(index);
      this.counter.add(1);
      if (isWhitespaceCode(code)) index += 1;
      else if (this.state === 'after-value' && code === SEMICOLON) {
        this.state = 'after-separator';
        index += 1;
      } else if (this.state === 'after-separator' && code === OPEN_BRACE) {
        this.state = 'value';
        this.scanner = this.shape.createScanner();
        this.valueStart = base + index;
      } else {
        // Whatever follows the last value is not part of the call: the block ends after that value.
        return this.values.at(-1)![1];
      }
    }
    return undefined;
  }

  private finish(end: number, resumeAt: number, cutOff = false): BlockStep {
    const whole = this.pieces.join('');
    this.counter.add(end);
    const values = this.values.map(([start, valueEnd]) => whole.slice(start, valueEnd));
    const parsed = cutOff || this.failed ? undefined : this.shape.parseValues(values);
    const events = parsed ?? [{ type: 'text' as const, text: whole.slice(0, end) }];
    return { events, end: { resumeAt, heldRest: whole.slice(end) } };
  }
}
