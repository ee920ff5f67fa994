/**
 * A token some families write right after a call, holding nothing: LFM2's `<|tool_call_end|>` after
 * its list (read to its closing bracket, so a model that stops before the token still made its call)
 * and GigaChat's end-of-sequence `</s>`. Recognised only where a call has just ended (blank space
 * allowed between), it is dropped; anywhere else it stays text.
 */
import type { BlockStep, OpeningSyntax, ParserBlock } from './parser-block.js';
import type { TextToolCallFormat } from './text-tool-call-types.js';

/** A block that ends at once with no events: the opening was the whole of it. */
export class EmptyBlock implements ParserBlock {
  readonly holdsText = false;
  readonly heldCharacters = 0;

  consume(_input: string, from: number): BlockStep {
    return { events: [], end: { resumeAt: from, heldRest: '' } };
  }

  release(): string {
    return '';
  }
}

export function trailingTokenSyntax(token: string, formats: readonly TextToolCallFormat[]): OpeningSyntax {
  return {
    triggers: token[0]!,
    formats,
    prefixes: [token],
    open(reader, context) {
      if (!context.atSegmentStart || !reader.accept(token)) return undefined;
      return { length: token.length, block: new EmptyBlock() };
    },
  };
}
