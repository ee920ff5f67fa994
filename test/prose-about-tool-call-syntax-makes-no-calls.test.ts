/**
 * Zero false calls on prose: more than 200 texts that mention tool-call syntax without calling
 * anything (documentation excerpts, code reviews, chat about tags, learners' code questions, in
 * test/text-tool-call-corpus/prose.json) are parsed in auto mode, with reasoning_opened at auto and
 * tools offered whose names some of them mention. Whole and in several chunkings, none may become a
 * call, and every character must come back as text exactly as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TextToolCallParser, type TextParserEvent } from '../src/text-tool-calls/index.js';
import type { OfferedTool } from '../src/text-tool-calls/vocabulary/text-tool-call-types.js';

interface ProseText {
  id: string;
  text: string;
  /**
   * The text holds a complete Harmony header (`<|channel|>final<|message|>`): it is read as one
   * wherever it stands and its tokens are not shown (docs/text-tool-calls.md), so only the absence of
   * calls and reasoning is checked.
   */
  harmony_header?: boolean;
}

const PROSE = JSON.parse(readFileSync(join(import.meta.dirname, 'text-tool-call-corpus', 'prose.json'), 'utf8')) as ProseText[];

/** The bar: at least this many texts. */
const PROSE_TEXTS_MINIMUM = 200;

const TOOLS: readonly OfferedTool[] = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: 'get_time', parameters: { type: 'object', properties: {} } },
  {
    name: 'search_course_materials',
    parameters: { type: 'object', properties: { query: { type: 'string' }, top_k: { type: 'integer' } } },
  },
];

function parse(chunks: readonly string[]): TextParserEvent[] {
  const parser = new TextToolCallParser({ tools: TOOLS, format: 'auto', reasoningOpened: 'auto' });
  return [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
}

function chunksOf(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size) chunks.push(text.slice(start, start + size));
  return chunks;
}

describe('prose that mentions tool-call syntax', () => {
  it(`holds at least ${PROSE_TEXTS_MINIMUM} distinct texts`, () => {
    expect(new Set(PROSE.map((prose) => prose.text)).size).toBeGreaterThanOrEqual(PROSE_TEXTS_MINIMUM);
  });

  it.each(PROSE)('$id makes no call and comes back exactly as written, whole and chunked', ({ text, harmony_header: harmonyHeader }) => {
    for (const chunks of [[text], chunksOf(text, 1), chunksOf(text, 3), chunksOf(text, 17)]) {
      const events = parse(chunks);
      expect(events.filter((event) => event.type === 'tool-call')).toEqual([]);
      expect(events.filter((event) => event.type === 'reasoning')).toEqual([]);
      if (harmonyHeader !== true) expect(events.map((event) => (event.type === 'tool-call' ? '' : event.text)).join('')).toBe(text);
    }
  });
});
