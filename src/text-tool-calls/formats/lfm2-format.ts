/**
 * Liquid LFM2 / LFM2.5: the call list between the model's own special tokens,
 *
 *   <|tool_call_start|>[get_weather(city="Paris"), get_time()]<|tool_call_end|>
 *
 * written pythonic (as the chat template asks) or, by models fine-tuned on it, as a JSON list of
 * call objects (`<|tool_call_start|>[{"name": "get_weather", "arguments": {…}}]<|tool_call_end|>`);
 * models also leave the list out around a single call or object.
 * The start token is decisive, and the list is read to its closing bracket by the pythonic and JSON
 * readers the other formats use; the end token after it is dropped (trailing-token-syntax.ts), so a
 * model that stops before writing it still made its call.
 */
import { BalancedCallBlock } from '../blocks/balanced-call-block.js';
import { readCallObjectOrArrayHead } from '../json/call-object-head.js';
import { jsonValueCallEvents } from '../json/json-value-calls.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { openingText, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import { trailingTokenSyntax } from '../blocks/trailing-token-syntax.js';
import { JsonValueScanner, PythonValueScanner } from '../scanning/value-scanner.js';
import { pythonCallEvents } from './pythonic-format.js';

const CALL_START = '<|tool_call_start|>';
const CALL_END = '<|tool_call_end|>';

export const lfm2Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['lfm2'],
  prefixes: [CALL_START],
  open(reader, context) {
    if (!reader.accept(CALL_START)) return undefined;
    reader.skipWhitespace();
    const valueOffset = reader.position - reader.start;
    const listed = reader.accept('[');
    reader.skipWhitespace();
    const next = reader.peek();
    if (listed && next === 0x5d) return { length: reader.position - reader.start, block: emptyListBlock(reader, valueOffset, context) };
    // JSON when the list holds objects, or when the model left the list out around a single object.
    const json = next === 0x7b;
    if (json) {
      reader.position = reader.start + valueOffset;
      if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
    } else {
      const name = reader.offeredName(context.tools);
      if (name === undefined) return undefined;
      reader.skipWhitespace();
      if (!listed) return openUnlistedCall(reader, name, context);
      if (!reader.accept('(')) return undefined;
    }
    const block = new BalancedCallBlock(
      {
        opening: openingText(reader),
        valueOffset,
        createScanner: () => (json ? new JsonValueScanner(context.counter) : new PythonValueScanner(context.counter)),
        chained: false,
        parseValues: (values) =>
          json ? jsonValueCallEvents(values, context.tools, 'lfm2') : pythonCallEvents(values[0] ?? '', true, context.tools, 'lfm2'),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

/** One call without its list (`<|tool_call_start|>get_weather(city="Paris")`, which Ollama reads too): to its closing parenthesis. */
function openUnlistedCall(reader: OpeningReader, name: string, context: OpeningContext): ReturnType<OpeningSyntax['open']> {
  if (reader.peek() !== 0x28) return undefined;
  const opening = openingText(reader);
  const block = new BalancedCallBlock(
    {
      opening,
      valueOffset: opening.length,
      createScanner: () => new PythonValueScanner(context.counter),
      chained: false,
      parseValues: ([argumentsText]) => pythonCallEvents(`${name}${argumentsText ?? ''}`, false, context.tools, 'lfm2'),
    },
    context.counter,
  );
  return { length: opening.length, block };
}

/** `[]`: the model called nothing. vLLM drops the block from the text, and so does this. */
function emptyListBlock(reader: OpeningReader, valueOffset: number, context: OpeningContext): BalancedCallBlock {
  return new BalancedCallBlock(
    {
      opening: openingText(reader),
      valueOffset,
      createScanner: () => new PythonValueScanner(context.counter),
      chained: false,
      parseValues: () => [],
    },
    context.counter,
  );
}

export const lfm2EndSyntax: OpeningSyntax = trailingTokenSyntax(CALL_END, ['lfm2']);
