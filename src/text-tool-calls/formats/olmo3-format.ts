/**
 * Olmo 3: pythonic calls, one per line, between `<function_calls>` tags,
 *
 *   <function_calls>get_weather(city='Paris')
 *   get_time()</function_calls>
 *
 * read by the pythonic reader Gemma's `tool_code` fences use (JSON's true/false/null are accepted,
 * as Olmo writes them too). The opening must name an offered tool and open its parentheses, so prose
 * about the tag, and Claude-style `<function_calls><invoke …>` blocks, stay text.
 */
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import { pythonCallEvents } from './pythonic-format.js';

const OPEN = '<function_calls>';
const CLOSE = '</function_calls>';

export const olmo3Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['olmo3'],
  prefixes: [OPEN],
  open(reader, context) {
    if (!reader.accept(OPEN)) return undefined;
    reader.skipWhitespace();
    if (reader.offeredName(context.tools) === undefined) return undefined;
    reader.skipWhitespace();
    if (!reader.accept('(')) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: OPEN.length,
        terminators: [
          { token: CLOSE, consumed: true },
          { token: OPEN, consumed: false },
        ],
        parseBody: (body) => pythonCallEvents(body, false, context.tools, 'olmo3'),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
