/**
 * ByteDance Seed-OSS: Qwen3-Coder's XML calls (read by the `xml_function` body reader) in Seed's own
 * wrapper, after reasoning in Seed's own tags:
 *
 *   <seed:think>…</seed:think>
 *   <seed:tool_call>
 *   <function=get_weather>
 *   <parameter=city>Paris</parameter>
 *   </function>
 *   </seed:tool_call>
 *
 * The budget notes Seed writes while thinking (`<seed:cot_budget_reflect>…`) stay in the reasoning.
 * Seed's template writes values right against their tags, so a line break before `</parameter>` is
 * the value's own (llama.cpp keeps it); only one right after the opening tag is dropped.
 */
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import { reasoningSyntax } from '../reasoning/reasoning-syntaxes.js';
import { readFunctionOpening, readWrappedBody } from './xml-function-format.js';

const CALL_OPEN = '<seed:tool_call>';
const CALL_CLOSE = '</seed:tool_call>';
const THINK_OPEN = '<seed:think>';
const THINK_CLOSE = '</seed:think>';

function withoutLeadingLineBreak(value: string): string {
  if (value.startsWith('\r\n')) return value.slice(2);
  return value.startsWith('\n') ? value.slice(1) : value;
}

export const seedOssSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['seed_oss'],
  prefixes: [CALL_OPEN],
  open(reader, context) {
    if (!reader.accept(CALL_OPEN)) return undefined;
    reader.skipWhitespace();
    if (readFunctionOpening(reader, context) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: CALL_OPEN.length,
        terminators: [
          { token: CALL_CLOSE, consumed: true },
          { token: CALL_OPEN, consumed: false },
        ],
        parseBody: (body, ending) =>
          readWrappedBody(body, ending, context.tools, { format: 'seed_oss', trimValue: withoutLeadingLineBreak }),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

/** Seed's reasoning, recognised where `<think>` is (a reasoning block runs in every setting). */
export const seedThinkSyntax: OpeningSyntax = reasoningSyntax(THINK_OPEN, THINK_CLOSE);
