/**
 * A Cohere Command block that streams (thinking as reasoning, the response as text) with its
 * citation marks removed: the model wraps each cited span as `<co>span</co: 0:[1,2]>`, naming the
 * documents it cites, and only the span belongs to the answer. Like the other streamed blocks it holds
 * back only what could still become a mark or its end token, never more than a mark's bound.
 */
import type { BlockStep, ParserBlock } from '../blocks/parser-block.js';
import type { WorkCounter } from '../scanning/work-counter.js';

const CITATION_OPEN = '<co>';
const CITATION_CLOSE_START = '</co:';
/** The longest closing mark read (`</co: 0:[1,2],1:[3,4]>`); a longer run is not one and stays text. */
const CITATION_CLOSE_MAXIMUM = 128;

type MarkAt = { kind: 'end'; length: number } | { kind: 'mark'; length: number } | { kind: 'text' } | { kind: 'undecided' };

export class CitationStrippedBlock implements ParserBlock {
  readonly holdsText = false;
  private held = '';

  constructor(
    private readonly kind: 'text' | 'reasoning',
    private readonly endTokens: readonly string[],
    private readonly counter: WorkCounter,
  ) {}

  get heldCharacters(): number {
    return this.held.length;
  }

  consume(input: string, from: number, to: number, atEnd: boolean): BlockStep {
    const heldBefore = this.held.length;
    const window = this.held + input.slice(from, to);
    this.held = '';
    const pieces: string[] = [];
    let emitFrom = 0;
    let position = 0;
    for (;;) {
      const next = window.indexOf('<', position);
      this.counter.add((next === -1 ? window.length : next + 1) - position);
      if (next === -1) break;
      const mark = this.markAt(window, next, atEnd);
      if (mark.kind === 'text') {
        position = next + 1;
        continue;
      }
      pieces.push(window.slice(emitFrom, next));
      if (mark.kind === 'undecided') {
        this.held = window.slice(next);
        return { events: this.content(pieces) };
      }
      if (mark.kind === 'end') {
        const restStart = next + mark.length;
        const end =
          restStart >= heldBefore
            ? { resumeAt: from + restStart - heldBefore, heldRest: '' }
            : { resumeAt: from, heldRest: window.slice(restStart, heldBefore) };
        return { events: this.content(pieces), end };
      }
      position = next + mark.length;
      emitFrom = position;
    }
    pieces.push(window.slice(emitFrom));
    const events = this.content(pieces);
    return atEnd ? { events, end: { resumeAt: to, heldRest: '' } } : { events };
  }

  release(): string {
    return this.held;
  }

  private markAt(window: string, at: number, atEnd: boolean): MarkAt {
    const rest = window.length - at;
    for (const token of [...this.endTokens, CITATION_OPEN, CITATION_CLOSE_START]) {
      const compared = Math.min(rest, token.length);
      this.counter.add(compared);
      if (!window.startsWith(token.slice(0, compared), at)) continue;
      if (compared < token.length) return atEnd ? { kind: 'text' } : { kind: 'undecided' };
      if (this.endTokens.includes(token)) return { kind: 'end', length: token.length };
      if (token === CITATION_OPEN) return { kind: 'mark', length: token.length };
      const limit = Math.min(window.length, at + CITATION_CLOSE_MAXIMUM);
      // A bounded scan that stops at the next `<` (no mark holds one), so a run of unclosed marks is read once.
      for (let index = at + token.length; index < limit; index += 1) {
        this.counter.add(1);
        const code = window.charCodeAt(index);
        if (code === 0x3e) return { kind: 'mark', length: index + 1 - at };
        if (code === 0x3c) return { kind: 'text' };
      }
      return limit === window.length && !atEnd && rest < CITATION_CLOSE_MAXIMUM ? { kind: 'undecided' } : { kind: 'text' };
    }
    return { kind: 'text' };
  }

  private content(pieces: readonly string[]): BlockStep['events'] {
    const text = pieces.join('');
    return text.length === 0 ? [] : [{ type: this.kind, text }];
  }
}
