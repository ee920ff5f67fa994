/**
 * Google FunctionGemma: `<start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>`.
 * Keys are bare; strings sit between two `<escape>` tokens (so they may hold commas, braces and
 * quotes); numbers, booleans and null are bare; objects and lists nest with `{…}` and `[…]`. A comma
 * the model left out between members is not needed. An `<escape>`d value stays a string unless the
 * parameter's schema declares another type: the notation marks strings, so `<escape>007<escape>` is
 * not a number.
 * Top-level values are typed by the tool's JSON Schema where it declares them. The end token is
 * special and a server may strip it, so a call whose braces close counts at the end of the text.
 *
 * Written here rather than taken from a library: the notation is FunctionGemma's own, and no
 * maintained parser for it exists for Node.
 */
import { textEvents } from '../json/call-events.js';
import { DelimitedCallBlock, type BlockEnding } from '../blocks/delimited-call-block.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import { typedValue } from '../xml/schema-typed-values.js';
import { toolCallEvent, type TextParserEvent } from '../vocabulary/text-tool-call-types.js';

const START = '<start_function_call>';
const END = '<end_function_call>';
const CALL = 'call:';
const ESCAPE = '<escape>';
/** Deeper nesting than any real argument; past it the call is not read (the text stays as written). */
const NESTING_MAXIMUM = 64;

/** Thrown inside the reader when the arguments do not follow the notation; caught at its entry. */
const NOT_THE_NOTATION: unique symbol = Symbol('not the notation');

function notTheNotation(): never {
  // A symbol, not an Error: control flow inside the reader, caught where it starts, needing no stack.
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- see above
  throw NOT_THE_NOTATION;
}

/** A cursor over the arguments: `{key:value,…}` with FunctionGemma's values. */
class ArgumentReader {
  position = 0;

  constructor(
    private readonly text: string,
    private readonly schemaOf: (key: string) => unknown,
  ) {}

  /** The top-level object; each value typed by its parameter's schema. */
  object(depth: number, typed: boolean): Record<string, unknown> {
    if (depth > NESTING_MAXIMUM) notTheNotation();
    this.expect('{');
    const members: Record<string, unknown> = {};
    this.skipBlank();
    if (this.take('}')) return members;
    for (;;) {
      this.skipBlank();
      const colon = this.text.indexOf(':', this.position);
      if (colon === -1) notTheNotation();
      const key = this.text.slice(this.position, colon).trim();
      if (key === '' || /[{}[\],<]/.test(key)) notTheNotation();
      this.position = colon + 1;
      this.skipBlank();
      members[key] = this.value(depth, typed ? this.schemaOf(key) : undefined, typed);
      this.skipBlank();
      if (this.take('}')) return members;
      // Models sometimes run the next key straight after an <escape>d or bracketed value.
      this.take(',');
    }
  }

  private list(depth: number): unknown[] {
    if (depth > NESTING_MAXIMUM) notTheNotation();
    this.expect('[');
    const items: unknown[] = [];
    this.skipBlank();
    if (this.take(']')) return items;
    for (;;) {
      this.skipBlank();
      items.push(this.value(depth, undefined, false));
      this.skipBlank();
      if (this.take(']')) return items;
      this.expect(',');
    }
  }

  private value(depth: number, schema: unknown, typed: boolean): unknown {
    if (this.text.startsWith(ESCAPE, this.position)) {
      const close = this.text.indexOf(ESCAPE, this.position + ESCAPE.length);
      if (close === -1) notTheNotation();
      const raw = this.text.slice(this.position + ESCAPE.length, close);
      this.position = close + ESCAPE.length;
      return typed ? typedValue(raw, schema) : raw;
    }
    const code = this.text.charCodeAt(this.position);
    if (code === 0x7b) return this.object(depth + 1, false);
    if (code === 0x5b) return this.list(depth + 1);
    let end = this.position;
    while (end < this.text.length && !',}]'.includes(this.text[end]!)) end += 1;
    const bare = this.text.slice(this.position, end).trim();
    this.position = end;
    if (bare === '') notTheNotation();
    if (typed && schema !== undefined) return typedValue(bare, schema);
    return bareLiteral(bare);
  }

  private skipBlank(): void {
    while (this.position < this.text.length && /\s/.test(this.text[this.position]!)) this.position += 1;
  }

  private take(character: string): boolean {
    if (this.text[this.position] !== character) return false;
    this.position += 1;
    return true;
  }

  private expect(character: string): void {
    if (!this.take(character)) notTheNotation();
  }
}

/** A bare value: a JSON number, true, false or null; anything else is the text itself. */
function bareLiteral(text: string): unknown {
  if (/^(?:true|false|null)$/.test(text) || /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(text)) return JSON.parse(text) as unknown;
  return text;
}

function readCall(body: string, ending: BlockEnding, tools: OfferedToolSet): TextParserEvent[] | undefined {
  const start = body.indexOf(CALL);
  const brace = body.indexOf('{', start);
  if (start === -1 || brace === -1) return undefined;
  const name = body.slice(start + CALL.length, brace);
  if (!tools.has(name)) return undefined;
  const reader = new ArgumentReader(body.slice(brace), (key) => tools.parameterSchema(name, key));
  let argumentsObject: Record<string, unknown>;
  try {
    argumentsObject = reader.object(0, true);
  } catch (signal) {
    if (signal !== NOT_THE_NOTATION) throw signal;
    // Cut off by the end of the text, or not the notation: a closed call keeps its arguments as written.
    if (ending === 'end-of-text') return undefined;
    return [toolCallEvent(name, body.slice(brace).trim(), 'function_gemma')];
  }
  return [toolCallEvent(name, JSON.stringify(argumentsObject), 'function_gemma'), ...textEvents(body.slice(brace + reader.position))];
}

export const functionGemmaSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['function_gemma'],
  prefixes: [START],
  open(reader, context) {
    if (!reader.accept(START)) return undefined;
    reader.skipWhitespace();
    if (!reader.accept(CALL) || reader.offeredName(context.tools) === undefined || !reader.accept('{')) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: START.length,
        terminators: [
          { token: END, consumed: true },
          { token: START, consumed: false },
        ],
        parseBody: (body, ending) => readCall(body, ending, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
