/**
 * MeetKai Functionary v3.1 (Llama 3.1 based): `<function=get_weather>{"city": "Paris"}</function>`,
 * calls anywhere in the text. It opens like Qwen3-Coder's `<function=…>` (xml_function) but carries
 * a JSON object, so it is that opening with a JSON body: it must be tried before xml_function's,
 * and only an opening followed by `{` is Functionary's.
 */
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import { argumentsJsonFromText } from '../json/json-calls.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import { toolCallEvent } from '../vocabulary/text-tool-call-types.js';
import { FUNCTION_CLOSE, FUNCTION_OPEN, readFunctionOpening } from './xml-function-format.js';

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export const functionaryV31Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['functionary_v31'],
  prefixes: [FUNCTION_OPEN],
  open(reader, context) {
    const name = readFunctionOpening(reader, context);
    if (name === undefined) return undefined;
    const bodyOffset = reader.position - reader.start;
    reader.skipWhitespace();
    if (!reader.accept('{')) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset,
        terminators: [
          { token: FUNCTION_CLOSE, consumed: true },
          { token: FUNCTION_OPEN, consumed: false },
        ],
        // Without its close, only arguments that are whole JSON count: the text may have been cut off.
        parseBody: (body, ending) =>
          ending === 'end-of-text' && !isJsonObject(body.trim())
            ? undefined
            : [toolCallEvent(name, argumentsJsonFromText(body), 'functionary_v31')],
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
