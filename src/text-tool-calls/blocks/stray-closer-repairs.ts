/**
 * Repairs for what models leave behind a call they already closed, as the engines make them:
 *
 *  - a closing tag with no opening (`<function=…>…</function></tool_call>` when the model skipped
 *    `<tool_call>`, `…[/TOOL_CALLS]` after Mistral calls);
 *  - an extra `}` or `]` after a complete JSON or pythonic call (`{"name": …, "arguments": {…}}}`);
 *  - a bare `commentary` gpt-oss leaves between two Harmony calls (the channel name of a header whose
 *    tokens are missing), before the next header or at the end;
 *  - DeepSeek's tool-output markers, special tokens that never occur in prose (anywhere).
 *
 * The leftovers are dropped only right after a call, with nothing but blank space between: there
 * they can only be the call's leftover. Anywhere else (prose that mentions `</tool_call>`, a `}` in code) it is text
 * as written, so no repair ever turns prose into a call or hides prose.
 */
import { DroppedMarkerBlock } from './dropped-marker-block.js';
import type { OpeningSyntax } from './parser-block.js';
import type { TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';
import { END } from '../scanning/opening-reader.js';
import { TOOL_CALL_CLOSE } from './tool-call-tags.js';

const MISTRAL_CLOSE = '[/TOOL_CALLS]';
const CLOSING_BRACKETS = new Set([0x7d, 0x5d]);
/** A run of stray brackets longer than this is not a leftover; it stays text. */
const STRAY_BRACKETS_MAXIMUM = 4;

/** The opening itself was the leftover, and it is dropped. */
const DROPPED = new DroppedMarkerBlock();

/**
 * Repair: DeepSeek's tool-output markers (`<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>`) in the
 * answer, which the model sometimes echoes around a result it quotes: special tokens no prose
 * contains, so they are dropped wherever they stand and the words between them kept.
 */
export const deepSeekToolOutputMarkerSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['deepseek_v3', 'deepseek_v31'],
  prefixes: ['<｜tool▁output▁begin｜>', '<｜tool▁output▁end｜>'],
  open(reader) {
    const token = ['<｜tool▁output▁begin｜>', '<｜tool▁output▁end｜>'].find((candidate) => reader.accept(candidate));
    return token === undefined ? undefined : { length: token.length, block: DROPPED };
  },
};

function strayCloser(token: string, formats: readonly TextToolCallFormat[]): OpeningSyntax {
  return {
    triggers: token[0]!,
    formats,
    prefixes: [token],
    open(reader, context) {
      if (!context.afterCall || !reader.accept(token)) return undefined;
      return { length: token.length, block: DROPPED };
    },
  };
}

/** `</tool_call>` right after a call: Qwen3-Coder's bare `<function=…>` calls and Hermes calls that closed twice. */
export const strayToolCallCloseSyntax = strayCloser(TOOL_CALL_CLOSE, ['xml_function', 'hermes', 'glm', 'granite']);

/** `[/TOOL_CALLS]` right after Mistral calls. */
export const strayMistralCloseSyntax = strayCloser(MISTRAL_CLOSE, ['mistral']);

/**
 * `}` or `]` right after a call: an extra closing bracket the model added to a complete call. The
 * run is read to its end first, so a leftover is dropped whole or (too long to be one) kept whole.
 */
export const strayBracketSyntax: OpeningSyntax = {
  triggers: '}]',
  onlyAfterCall: true,
  formats: ['json_array', 'llama3_json', 'pythonic', 'mistral', 'granite', 'functools', 'openai_json', 'tool_calls_tag', 'hermes'],
  open(reader, context) {
    if (!context.afterCall) return undefined;
    let length = 0;
    while (length <= STRAY_BRACKETS_MAXIMUM && CLOSING_BRACKETS.has(reader.peek())) {
      reader.position += 1;
      length += 1;
    }
    if (length > STRAY_BRACKETS_MAXIMUM) return undefined;
    return { length, block: DROPPED };
  },
};

const COMMENTARY = 'commentary';
const HARMONY_HEADER_STARTS = ['<|start|>', '<|channel|>'];

/** `commentary` right after a Harmony call, followed only by blank space and the next header (or the end). */
export const strayHarmonyFillerSyntax: OpeningSyntax = {
  triggers: 'c',
  onlyAfterCall: true,
  formats: ['harmony'],
  prefixes: [COMMENTARY],
  open(reader, context) {
    if (!context.afterCall || !reader.accept(COMMENTARY)) return undefined;
    const length = reader.position - reader.start;
    reader.skipWhitespace();
    if (reader.peek() !== END && !HARMONY_HEADER_STARTS.some((token) => reader.accept(token))) return undefined;
    return { length, block: DROPPED };
  },
};
