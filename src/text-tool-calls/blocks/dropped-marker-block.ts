/**
 * A marker that carries nothing for the reader (Functionary's `>>>all` header before plain text,
 * Hunyuan's `<answer>` wrapper, a token left after a call, a stray closer the repairs drop): the
 * opening that recognised it covers it, and this block ends at once, so the marker is dropped and
 * the text after it is scanned as usual.
 */
import type { BlockStep, ParserBlock } from './parser-block.js';

export class DroppedMarkerBlock implements ParserBlock {
  readonly holdsText = false;
  readonly heldCharacters = 0;

  consume(_input: string, from: number): BlockStep {
    return { events: [], end: { resumeAt: from, heldRest: '' } };
  }

  release(): string {
    return '';
  }
}
