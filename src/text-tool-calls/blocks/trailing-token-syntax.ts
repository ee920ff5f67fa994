/**
 * A token some families write right after a call, holding nothing: LFM2's `<|tool_call_end|>` after
 * its list (read to its closing bracket, so a model that stops before the token still made its call)
 * GigaChat's end-of-sequence `</s>`, Gemma 4's stray `<channel|>`, Cohere's end-of-turn token.
 * Recognised only where a call has just ended (blank space allowed between) or, for some, at the very
 * end of the text, it is dropped; anywhere else it stays text.
 */
import { END } from '../scanning/opening-reader.js';
import { DroppedMarkerBlock } from './dropped-marker-block.js';
import type { OpeningSyntax } from './parser-block.js';
import type { TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';

/**
 * `token` dropped where a call (or reasoning) has just ended; with `alsoAtTextEnd`, also as the very
 * last thing in the text (an end-of-turn token after an answer), which the opening waits to see.
 */
export function trailingTokenSyntax(token: string, formats: readonly TextToolCallFormat[], alsoAtTextEnd = false): OpeningSyntax {
  return {
    triggers: token[0]!,
    formats,
    prefixes: [token],
    open(reader, context) {
      if (!reader.accept(token)) return undefined;
      if (!context.atSegmentStart && !(alsoAtTextEnd && reader.peek() === END)) return undefined;
      return { length: token.length, block: new DroppedMarkerBlock() };
    },
  };
}
