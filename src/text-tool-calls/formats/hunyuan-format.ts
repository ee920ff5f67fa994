/**
 * Tencent Hunyuan A13B: the answer sits in `<answer>…</answer>` after the reasoning, and calls are
 * Jamba's `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>` inside it,
 *
 *   <think>…</think>
 *   <answer>
 *   <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>
 *   </answer>
 *
 * The tags alone are read by the `tool_calls_tag` syntax (reported as `hunyuan` in this setting);
 * this file adds the wrapper: `<answer>` is read only when a call follows it, and a `</answer>`
 * right after a call is dropped. A plain answer's wrapper stays text: `<answer>` alone is ordinary markup.
 */
import { textEvents } from '../json/call-events.js';
import { readCallObjectOrArrayHead } from '../json/call-object-head.js';
import { DelimitedCallBlock, type BlockEnding } from '../blocks/delimited-call-block.js';
import { DroppedMarkerBlock } from '../blocks/dropped-marker-block.js';
import { readJsonCallBody } from '../json/json-call-body.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import type { TextParserEvent } from '../vocabulary/text-tool-call-types.js';
import { TOOL_CALLS_CLOSE, TOOL_CALLS_OPEN } from './tool-calls-tag-format.js';

const ANSWER_OPEN = '<answer>';
const ANSWER_CLOSE = '</answer>';

/** The answer's body: text, the `<tool_calls>` block, text. */
function readAnswer(body: string, ending: BlockEnding, tools: OfferedToolSet): TextParserEvent[] | undefined {
  const open = body.indexOf(TOOL_CALLS_OPEN);
  if (open === -1) return undefined;
  const close = body.indexOf(TOOL_CALLS_CLOSE, open);
  if (close === -1 && ending !== 'closed') return undefined;
  const callsEnd = close === -1 ? body.length : close;
  const calls = readJsonCallBody(body.slice(open + TOOL_CALLS_OPEN.length, callsEnd), 'closed', { tools, format: 'hunyuan' });
  if (calls === undefined) return undefined;
  const after = close === -1 ? '' : body.slice(close + TOOL_CALLS_CLOSE.length);
  return [...textEvents(body.slice(0, open)), ...calls, ...textEvents(after)];
}

export const hunyuanAnswerSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['hunyuan'],
  prefixes: [ANSWER_OPEN],
  open(reader, context) {
    if (!reader.accept(ANSWER_OPEN)) return undefined;
    reader.skipWhitespace();
    if (!reader.accept(TOOL_CALLS_OPEN)) return undefined;
    reader.skipWhitespace();
    if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: ANSWER_OPEN.length,
        terminators: [
          { token: ANSWER_CLOSE, consumed: true },
          { token: ANSWER_OPEN, consumed: false },
        ],
        parseBody: (body, ending) => readAnswer(body, ending, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

/** `</answer>` right after a call (its `<answer>` was left behind as text, or stripped). */
export const hunyuanAnswerCloseSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['hunyuan'],
  onlyAtSegmentStart: true,
  prefixes: [ANSWER_CLOSE],
  open(reader, context) {
    if (!context.atSegmentStart || !reader.accept(ANSWER_CLOSE)) return undefined;
    return { length: ANSWER_CLOSE.length, block: new DroppedMarkerBlock() };
  },
};
