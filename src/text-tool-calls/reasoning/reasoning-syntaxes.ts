/**
 * Reasoning blocks: `<think>…</think>` (DeepSeek R1, Qwen3, most open reasoning models) and
 * `[THINK]…[/THINK]` (Magistral). They are recognised where a reasoning block starts in practice: at
 * the start of the answer, or right after a call or another reasoning block (blank space allowed
 * before them), so prose that mentions the tag mid-sentence stays prose.
 */
import type { OpeningSyntax } from '../blocks/parser-block.js';
import { StreamedBlock } from '../blocks/streamed-block.js';

/** A reasoning block between two literal tags, as the families with their own tags write it. */
export function reasoningSyntax(open: string, close: string): OpeningSyntax {
  return {
    triggers: open[0]!,
    formats: 'reasoning',
    prefixes: [open],
    open(reader, context) {
      if (!context.atSegmentStart || !reader.accept(open)) return undefined;
      return { length: open.length, block: new StreamedBlock('reasoning', [{ token: close, consumed: true }], context.counter) };
    },
  };
}

export const thinkTagSyntax = reasoningSyntax('<think>', '</think>');
export const thinkBracketSyntax = reasoningSyntax('[THINK]', '[/THINK]');
