/**
 * StepFun Step3: a section of special tokens (full-width bars, plain underscores, unlike DeepSeek's)
 * around XML invocations in the `steptml:` namespace,
 *
 *   <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
 *   <steptml:parameter name="city">Paris</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>
 *
 * The `function<｜tool_sep｜>` header (sometimes followed by the name again) is optional. The section's
 * end is a special token a server may strip, so a section the text ends inside still counts when
 * each of its invocations is closed.
 */
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import { invokeTags, readInvokeCalls, readInvokeOpening } from '../xml/invoke-calls.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';

const CALLS_BEGIN = '<｜tool_calls_begin｜>';
const CALLS_END = '<｜tool_calls_end｜>';
const CALL_BEGIN = '<｜tool_call_begin｜>';
const SEPARATOR = '<｜tool_sep｜>';
const TAGS = invokeTags('steptml:', false);

export const step3Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['step3'],
  prefixes: [CALLS_BEGIN],
  open(reader, context) {
    if (!reader.accept(CALLS_BEGIN)) return undefined;
    reader.skipWhitespace();
    if (!reader.accept(CALL_BEGIN)) return undefined;
    reader.skipWhitespace();
    if (reader.accept('function')) {
      if (!reader.accept(SEPARATOR)) return undefined;
      reader.offeredName(context.tools);
      reader.skipWhitespace();
    }
    if (readInvokeOpening(reader, context, TAGS) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: CALLS_BEGIN.length,
        terminators: [
          { token: CALLS_END, consumed: true },
          { token: CALLS_BEGIN, consumed: false },
        ],
        parseBody: (body, ending) =>
          readInvokeCalls(body, context.tools, TAGS, { format: 'step3', acceptUnclosed: ending !== 'end-of-text' }),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
