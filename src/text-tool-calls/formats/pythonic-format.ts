/**
 * Pythonic calls (Llama 3.2, Llama 4, many small models): `[get_weather(city="Paris"), get_time()]`,
 * bare, after `<|python_tag|>`, or between `<|python_start|>` and `<|python_end|>`. Arguments are
 * Python literals.
 */
import { BalancedCallBlock } from '../blocks/balanced-call-block.js';
import { callEvents } from '../json/call-events.js';
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import { PYTHON_TAG } from './llama3-json-format.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import { openingText, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { readPythonCalls } from '../python/python-calls.js';
import type { TextParserEvent, TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';
import { PythonValueScanner } from '../scanning/value-scanner.js';

const PYTHON_START = '<|python_start|>';
const PYTHON_END = '<|python_end|>';

/** The events of a call list when every call names an offered tool. */
export function pythonCallEvents(
  text: string,
  bracketed: boolean,
  tools: OfferedToolSet,
  format: TextToolCallFormat = 'pythonic',
): TextParserEvent[] | undefined {
  const calls = readPythonCalls(text, bracketed);
  if (calls === undefined || !calls.every((call) => tools.has(call.name))) return undefined;
  return callEvents(calls, format);
}

/** `name(` with an offered name, after the list's `[`. */
function readCallStart(reader: OpeningReader, context: OpeningContext): boolean {
  reader.skipWhitespace();
  if (reader.offeredName(context.tools) === undefined) return false;
  reader.skipWhitespace();
  return reader.accept('(');
}

function openList(reader: OpeningReader, context: OpeningContext): ReturnType<OpeningSyntax['open']> {
  const valueOffset = reader.position - reader.start;
  if (!reader.accept('[') || !readCallStart(reader, context)) return undefined;
  const block = new BalancedCallBlock(
    {
      opening: openingText(reader),
      valueOffset,
      createScanner: () => new PythonValueScanner(context.counter),
      chained: false,
      parseValues: ([list]) => pythonCallEvents(list ?? '', true, context.tools),
    },
    context.counter,
  );
  return { length: reader.position - reader.start, block };
}

export const barePythonicSyntax: OpeningSyntax = {
  triggers: '[',
  formats: ['pythonic'],
  open: (reader, context) => openList(reader, context),
};

export const taggedPythonicSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['pythonic'],
  prefixes: [PYTHON_TAG],
  open(reader, context) {
    if (!reader.accept(PYTHON_TAG)) return undefined;
    reader.skipWhitespace();
    return openList(reader, context);
  },
};

export const pythonStartSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['pythonic'],
  prefixes: [PYTHON_START],
  open(reader, context) {
    if (!reader.accept(PYTHON_START)) return undefined;
    reader.skipWhitespace();
    const bracketed = reader.accept('[');
    if (!readCallStart(reader, context)) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: PYTHON_START.length,
        terminators: [{ token: PYTHON_END, consumed: true }],
        parseBody: (body) => pythonCallEvents(body, bracketed, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
