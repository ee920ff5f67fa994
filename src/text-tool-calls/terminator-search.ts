/**
 * Finds the first of several end tokens (`</tool_call>`, `<|call|>`, …) in text that arrives in
 * pieces, scanning each character once: it keeps only the last few characters of the previous
 * pieces, enough for a token split across two of them.
 */
import type { WorkCounter } from './work-counter.js';

export interface Terminator {
  token: string;
  /** A consumed terminator belongs to the block; one that is not (the next call's opening) is scanned again. */
  consumed: boolean;
}

export interface TerminatorMatch {
  /** Offset of the token from the first character fed. */
  offset: number;
  terminator: Terminator;
}

export class TerminatorSearch {
  private readonly pattern: RegExp;
  private readonly longest: number;
  private tail = '';
  /** Offset of `tail`'s first character from the first character fed. */
  private tailOffset = 0;

  constructor(
    private readonly terminators: readonly Terminator[],
    private readonly counter: WorkCounter,
  ) {
    this.pattern = new RegExp(terminators.map((terminator) => escapeRegExp(terminator.token)).join('|'), 'g');
    this.longest = Math.max(...terminators.map((terminator) => terminator.token.length));
  }

  /** Feeds the next piece; answers the first terminator found so far, if any. */
  feed(piece: string): TerminatorMatch | undefined {
    const window = this.tail + piece;
    this.pattern.lastIndex = 0;
    const match = this.pattern.exec(window);
    this.counter.add(match === null ? window.length : match.index + match[0].length);
    if (match !== null) {
      const terminator = this.terminators.find((candidate) => candidate.token === match[0])!;
      return { offset: this.tailOffset + match.index, terminator };
    }
    const keep = Math.min(window.length, this.longest - 1);
    this.tailOffset += window.length - keep;
    this.tail = window.slice(window.length - keep);
    return undefined;
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
