/**
 * One answer, several searches: the passages the model is given are numbered as the answer's
 * sources are, after the context tool's and on across every search_knowledge_base call (two at
 * once, then one more round), so a citation `[n]` the model writes is source n on the page. Over
 * real HTTP on both stores, with the fake provider calling the function.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatWorld, type ChatWorld } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { addSourcedAssistant, QUESTION, type SourcedAssistant } from './support/sourced-assistant.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';

describe.each(TEST_DIALECTS)('citation numbers of one answer on %s', (dialect) => {
  let world: ChatWorld;
  let sourced: SourcedAssistant;
  let assistantId: number;

  beforeAll(async () => {
    world = await startChatWorld(dialect);
    sourced = await addSourcedAssistant(world.server, world.adminToken);
    const existing = await request(world.server, 'GET', `/api/assistants/${sourced.assistantId}`, { token: world.adminToken });
    const collections = existing.body.metadata.tools[0].config.collections as string[];
    const created = await request(world.server, 'POST', '/api/assistants', {
      token: world.adminToken,
      body: {
        name: 'Plant searcher',
        system_prompt: 'You teach plant biology.',
        prompt_template: 'Notes: {context}\n\nQuestion: {user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          tools: [
            { type: 'simple_rag', enabled: true, config: { collections, top_k: 5, threshold: sourced.leastSimilarity } },
            { type: 'search_knowledge_base', enabled: true, config: { collections, top_k: 2, threshold: sourced.leastSimilarity } },
          ],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    assistantId = created.body.id as number;
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it('numbers each search on from the sources before it', async () => {
    // The same search three times; the trailing spaces keep the loop from refusing an exact repeat.
    const search = (id: string, spaces: number) => ({
      id,
      name: 'search_knowledge_base',
      arguments: JSON.stringify({ query: QUESTION + ' '.repeat(spaces) }),
    });
    world.provider.enqueue(
      { toolCalls: [search('call_a', 0), search('call_b', 1)] },
      { toolCalls: [search('call_c', 2)] },
      { text: 'Light first [3], then sugar [8].' },
    );
    const chat = await request(world.server, 'POST', '/api/chats', { token: world.adminToken, body: { assistant_id: assistantId } });
    const answered = await request(world.server, 'POST', `/api/chats/${chat.body.id}/messages`, {
      token: world.adminToken,
      body: { content: QUESTION },
    });
    expect(answered.status, answered.text).toBe(200);

    const lastRequest = world.provider.requests.at(-1)!.body as {
      messages: Array<{ role: string; tool_call_id?: string; content: string }>;
    };
    const results = new Map(
      lastRequest.messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id, message.content]),
    );
    // The context tool listed sources 1 and 2; each search gave two passages.
    expect([...results.get('call_a')!.matchAll(/^\[(\d+)\]/gm)].map((match) => match[1])).toEqual(['3', '4']);
    expect([...results.get('call_b')!.matchAll(/^\[(\d+)\]/gm)].map((match) => match[1])).toEqual(['5', '6']);
    expect([...results.get('call_c')!.matchAll(/^\[(\d+)\]/gm)].map((match) => match[1])).toEqual(['7', '8']);

    const kept = await request(world.server, 'GET', `/api/chats/${chat.body.id}`, { token: world.adminToken });
    const sources = kept.body.messages[1].sources as Array<{ tool: string; text: string }>;
    expect(sources.map((source) => source.tool)).toEqual([
      'simple_rag',
      'simple_rag',
      ...Array.from({ length: 6 }, () => 'search_knowledge_base'),
    ]);
    // Passage [n] the model was given is source n.
    for (const [id, first] of [
      ['call_a', 3],
      ['call_c', 7],
    ] as const) {
      const given = results.get(id)!.split('\n\n')[0]!;
      expect(given).toContain(sources[first - 1]!.text);
    }
  });
});
