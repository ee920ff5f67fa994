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

/**
 * A stretch where terminators are data, not ends: a value of the call (`<arg_value>…</arg_value>`)
 * may quote the call's own tags (`Wrap each call in <tool_call> and </tool_call>`).
 */
export interface QuietZone {
  open: string;
  /** Any of these ends the zone (the value's close, or the next key where a model forgot it). */
  closes: readonly string[];
}

export class TerminatorSearch {
  private readonly pattern: RegExp;
  private readonly longest: number;
  private tail = '';
  /** Offset of `tail`'s first character from the first character fed. */
  private tailOffset = 0;
  private inQuietZone = false;

  constructor(
    private readonly terminators: readonly Terminator[],
    private readonly counter: WorkCounter,
    private readonly quietZone?: QuietZone,
  ) {
    const tokens = [
      ...terminators.map((terminator) => terminator.token),
      ...(quietZone === undefined ? [] : [quietZone.open, ...quietZone.closes]),
    ];
    this.pattern = new RegExp(tokens.map((token) => escapeRegExp(token)).join('|'), 'g');
    this.longest = Math.max(...tokens.map((token) => token.length));
  }

  /** Feeds the next piece; answers the first terminator found so far, if any. */
  feed(piece: string): TerminatorMatch | undefined {
    const window = this.tail + piece;
    this.pattern.lastIndex = 0;
    // Where the last token found ends: the tail kept for the next piece starts no earlier, so no token is counted twice.
    let scannedTo = 0;
    for (let match = this.pattern.exec(window); match !== null; match = this.pattern.exec(window)) {
      const token = match[0];
      scannedTo = match.index + token.length;
      const terminator = this.inQuietZone ? undefined : this.terminators.find((candidate) => candidate.token === token);
      if (terminator !== undefined) {
        this.counter.add(scannedTo);
        return { offset: this.tailOffset + match.index, terminator };
      }
      if (this.quietZone === undefined) continue;
      if (this.inQuietZone && this.quietZone.closes.includes(token)) this.inQuietZone = false;
      if (token === this.quietZone.open) this.inQuietZone = true;
    }
    this.counter.add(window.length);
    const keep = Math.min(window.length - scannedTo, this.longest - 1);
    this.tailOffset += window.length - keep;
    this.tail = window.slice(window.length - keep);
    return undefined;
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
