// Proves that a rendered message's JSON, joined from its pieces' kept escaped forms, reads back as the very message (quotes, backslashes, control characters, emoji, surrogates cut between pieces), that only long non-user pieces are kept and within PROMPT_JSON_CACHE_CHARACTERS, and that a message changed after rendering is written whole.
import { afterEach, describe, expect, it } from 'vitest';
import type { AssistantSnapshot } from '../assistant-metadata/assistant-snapshot.js';
import { TEST_ASSISTANT } from '../../../test/support/tool-context.js';
import { renderMessages } from '../templates/template-rendering.js';
import { keepPromptJson, keptPromptJsonCharacters, messageJson, recordRenderedContent } from './message-json.js';
import type { ChatMessage } from './messages.js';

const DEFAULT_CHARACTERS = 4_000_000;

const assistant: AssistantSnapshot = {
  ...TEST_ASSISTANT,
  systemPrompt: 'Answer from the "notes".',
  promptTemplate: 'Notes:\n{file}\nPassages: {context}\nQuestion: {user_input} {unknown}',
};

function rendered(values: Record<string, string>, userText: string): ChatMessage[] {
  return renderMessages({
    assistant,
    messages: [
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call-1' }] },
      { role: 'user', content: userText, name: 'learner' },
    ],
    values,
    contextSources: [],
    knownPlaceholders: new Set(['file', 'context']),
    defaultTemplate: '{user_input}',
  });
}

/** A random string of the characters JSON escapes and those it does not, lone surrogates included. */
function randomText(random: () => number, length: number): string {
  const alphabet = ['a', 'é', '"', '\\', '\n', '\t', '\u0000', '\u001f', '\u2028', '😀', '\ud83d', '\ude00', '{', '}', ' ', '/'];
  let text = '';
  for (let index = 0; index < length; index += 1) text += alphabet[Math.floor(random() * alphabet.length)]!;
  return text;
}

function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

afterEach(() => keepPromptJson(DEFAULT_CHARACTERS));

describe('messageJson', () => {
  it('reads back as the rendered message for 300 random prompts, long and short, kept or not', () => {
    const random = seededRandom(36);
    const file = randomText(random, 5_000);
    for (let round = 0; round < 300; round += 1) {
      const values = { file: round % 3 === 0 ? randomText(random, 40) : file, context: randomText(random, Math.floor(random() * 3_000)) };
      const messages = rendered(values, randomText(random, Math.floor(random() * 2_000)));
      for (const message of messages) expect(JSON.parse(messageJson(message))).toEqual(JSON.parse(JSON.stringify(message)));
      const last = messages.at(-1)!;
      expect(JSON.parse(messageJson(last))).toEqual({ ...last });
    }
  });

  it("keeps a long tool value's escaped form once, and never the user's text however long", () => {
    keepPromptJson(DEFAULT_CHARACTERS);
    const file = 'Lesson "one"\n'.repeat(400);
    const userText = 'my own long question\n'.repeat(400);
    const [, , , last] = rendered({ file, context: '' }, userText);
    messageJson(last!);
    const kept = keptPromptJsonCharacters();
    expect(kept).toBe(file.length + JSON.stringify(file).length - 2);
    messageJson(rendered({ file, context: '' }, userText).at(-1)!);
    expect(keptPromptJsonCharacters()).toBe(kept);
  });

  it('keeps nothing with PROMPT_JSON_CACHE_CHARACTERS at 0, and writes the same JSON', () => {
    const file = 'x"\\'.repeat(2_000);
    const withCache = messageJson(rendered({ file, context: 'c' }, 'q').at(-1)!);
    keepPromptJson(0);
    const message = rendered({ file, context: 'c' }, 'q').at(-1)!;
    expect(messageJson(message)).toBe(withCache);
    expect(keptPromptJsonCharacters()).toBe(0);
  });

  it('keeps no more than its bound, dropping pieces to make room for new ones', () => {
    keepPromptJson(25_000);
    messageJson(rendered({ file: 'a'.repeat(5_000), context: '' }, 'q').at(-1)!);
    messageJson(rendered({ file: 'b'.repeat(5_000), context: 'c'.repeat(4_000) }, 'q').at(-1)!);
    // Each kept piece counts itself and its escaped form; the passages were too short to keep.
    expect(keptPromptJsonCharacters()).toBe(20_000);
    messageJson(rendered({ file: 'c'.repeat(5_000), context: '' }, 'q').at(-1)!);
    expect(keptPromptJsonCharacters()).toBe(20_000);
  });

  it('keeps a long system prompt escaped, and writes it as JSON.stringify does', () => {
    const systemPrompt = 'You are a "careful" tutor.\n'.repeat(200);
    const message = renderMessages({
      assistant: { ...assistant, systemPrompt },
      messages: [{ role: 'user', content: 'q' }],
      values: {},
      contextSources: [],
      knownPlaceholders: new Set(),
      defaultTemplate: '',
    })[0]!;
    expect(messageJson(message)).toBe(JSON.stringify(message));
    expect(keptPromptJsonCharacters()).toBe(systemPrompt.length + JSON.stringify(systemPrompt).length - 2);
  });

  it('writes a message whose content changed after rendering whole, from its content', () => {
    const message: ChatMessage = { role: 'user', content: 'ab' };
    recordRenderedContent(message, ['a', 'b'], '');
    message.content = 'changed "text"';
    expect(messageJson(message)).toBe(JSON.stringify(message));
  });

  it('writes a message without recorded pieces as JSON.stringify does', () => {
    const message: ChatMessage = { role: 'tool', content: 'result', tool_call_id: 'call-1' };
    expect(messageJson(message)).toBe(JSON.stringify(message));
  });
});
