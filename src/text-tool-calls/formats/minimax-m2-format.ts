/**
 * MiniMax M2: XML invocations inside its tool-call tags,
 *
 *   <minimax:tool_call>
 *   <invoke name="get_weather">
 *   <parameter name="city">Paris</parameter>
 *   </invoke>
 *   </minimax:tool_call>
 *
 * several invocations in one section. The closing tag is a special token a server may strip, so a
 * section the text ends inside still counts when each of its invocations is closed.
 */
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import { invokeTags, readInvokeCalls, readInvokeOpening } from '../xml/invoke-calls.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';

const SECTION_OPEN = '<minimax:tool_call>';
const SECTION_CLOSE = '</minimax:tool_call>';
const TAGS = invokeTags('', true);

export const minimaxM2Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['minimax_m2'],
  prefixes: [SECTION_OPEN],
  open(reader, context) {
    if (!reader.accept(SECTION_OPEN)) return undefined;
    reader.skipWhitespace();
    if (readInvokeOpening(reader, context, TAGS) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: SECTION_OPEN.length,
        terminators: [
          { token: SECTION_CLOSE, consumed: true },
          { token: SECTION_OPEN, consumed: false },
        ],
        parseBody: (body, ending) =>
          readInvokeCalls(body, context.tools, TAGS, { format: 'minimax_m2', acceptUnclosed: ending !== 'end-of-text' }),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
