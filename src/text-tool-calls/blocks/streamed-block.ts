/**
 * A block whose content streams as it arrives: reasoning (`<think>…</think>`, `[THINK]…[/THINK]`,
 * Harmony's analysis channel) and Harmony's answer channels, whose content is plain text. Only a
 * possible start of its end token is held back.
 */
import type { BlockStep, ParserBlock } from './parser-block.js';
import { escapeRegExp, type Terminator } from '../scanning/terminator-search.js';
import type { WorkCounter } from '../scanning/work-counter.js';

export class StreamedBlock implements ParserBlock {
  readonly holdsText = false;
  private held = '';
  private readonly pattern: RegExp;
  private readonly longestTerminator: number;
  private readonly firstCharacters: Set<number>;

  constructor(
    private readonly kind: 'text' | 'reasoning',
    private readonly terminators: readonly Terminator[],
    private readonly counter: WorkCounter,
  ) {
    this.pattern = new RegExp(terminators.map((terminator) => escapeRegExp(terminator.token)).join('|'), 'g');
    this.longestTerminator = Math.max(...terminators.map((terminator) => terminator.token.length));
    this.firstCharacters = new Set(terminators.map((terminator) => terminator.token.charCodeAt(0)));
  }

  get heldCharacters(): number {
    return this.held.length;
  }

  consume(input: string, from: number, to: number, atEnd: boolean): BlockStep {
    const heldBefore = this.held.length;
    const window = this.held + input.slice(from, to);
    this.held = '';
    this.pattern.lastIndex = 0;
    const match = this.pattern.exec(window);
    if (match !== null) {
      this.counter.add(match.index + match[0].length);
      const terminator = this.terminators.find((candidate) => candidate.token === match[0])!;
      const restStart = terminator.consumed ? match.index + match[0].length : match.index;
      // The rest starts either inside what was held (a token split across pushes) or inside the input.
      const end =
        restStart >= heldBefore
          ? { resumeAt: from + restStart - heldBefore, heldRest: '' }
          : { resumeAt: from, heldRest: window.slice(restStart, heldBefore) };
      return { events: this.content(window.slice(0, match.index)), end };
    }
    this.counter.add(window.length);
    const keep = atEnd ? 0 : this.partialTerminatorLength(window);
    this.held = window.slice(window.length - keep);
    const events = this.content(window.slice(0, window.length - keep));
    return atEnd ? { events, end: { resumeAt: to, heldRest: '' } } : { events };
  }

  release(): string {
    return this.held;
  }

  private content(text: string): BlockStep['events'] {
    return text.length === 0 ? [] : [{ type: this.kind, text }];
  }

  /** The length of the longest end of `window` that could be the start of a terminator. */
  private partialTerminatorLength(window: string): number {
    for (let length = Math.min(window.length, this.longestTerminator - 1); length > 0; length -= 1) {
      const start = window.length - length;
      this.counter.add(1);
      if (!this.firstCharacters.has(window.charCodeAt(start))) continue;
      const ending = window.slice(start);
      if (this.terminators.some((terminator) => terminator.token.startsWith(ending))) return length;
    }
    return 0;
  }
}
