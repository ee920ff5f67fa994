/**
 * An assistant's insights add up what learners' chats did (docs/assistant-insights.md): a small
 * seeded set of chats, asked through the real chat API with the fake model, gives the exact
 * counts (chats, learners, questions, tokens, cost, tool steps, searches that found nothing,
 * sources, topics, ratings) and the CSV says the same. Learners' names and emails appear nowhere:
 * not in topics, not in the ratings listed, which only appear while the organization lets owners
 * read chats, and then with the conversation that led to each answer. Calls to the assistant
 * through /v1 (no chat, as test runs) count in usage and not in insights; fifty concurrent changes
 * of one rating leave the rating counters exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatWorld, type ChatWorld } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { addSourcedAssistant, QUESTION } from './support/sourced-assistant.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';

const CONCURRENT_RATINGS = 50;
const USAGE = { prompt_tokens: 1_000, completion_tokens: 500 };
/** USD per million tokens: 1 in, 2 out, so each answer costs 1,000 × 1 + 500 × 2 = 2,000 micro-dollars. */
const PRICE = { model: 'gpt-4o-mini', input_usd_per_million: 1, output_usd_per_million: 2 };
const NAMES = ['zoraida', 'quintanilla', 'bartholomew', 'xenakis'];
const COMMENT = 'Too vague about the light reactions.';

interface ChatMessage {
  id: number;
  role: string;
  steps: { tool: string; state: string }[];
  sources: { tool?: string }[];
  usage: { prompt_tokens: number; completion_tokens: number } | null;
}

describe.each(TEST_DIALECTS)('assistant insights figures on %s', (dialect) => {
  let world: ChatWorld;
  let assistantId: number;
  let organizationId: number;
  let zoraida: CreatedUser;
  let bartholomew: CreatedUser;
  const answers: Record<string, ChatMessage[]> = {};
  let chatOf: Record<string, number>;

  async function ask(learner: CreatedUser, chatId: number, content: string): Promise<void> {
    world.provider.enqueue({ text: `An answer to: ${content.length} characters.`, usage: USAGE });
    const response = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: learner.token, body: { content } });
    expect(response.status).toBe(200);
  }

  const insights = (query = '') =>
    request(world.server, 'GET', `/api/assistants/${assistantId}/insights${query}`, { token: world.adminToken });
  const listedFeedback = (query = '') =>
    request(world.server, 'GET', `/api/assistants/${assistantId}/feedback${query}`, { token: world.adminToken });
  const setOwnersCanReadChats = (value: boolean) =>
    request(world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: world.adminToken,
      body: { owners_can_read_chats: value },
    });

  beforeAll(async () => {
    world = await startChatWorld(dialect);
    organizationId = (await request(world.server, 'GET', '/api/me', { token: world.adminToken })).body.organization_id;
    const priced = await request(world.server, 'PUT', `/api/organizations/${organizationId}/model-prices`, {
      token: world.adminToken,
      body: { prices: [PRICE] },
    });
    expect(priced.status).toBe(200);
    assistantId = (await addSourcedAssistant(world.server, world.adminToken)).assistantId;
    zoraida = await createUser(world.server, world.adminToken, {
      email: 'zoraida.quintanilla@merino.test',
      role: 'learner',
      name: 'Zoraida Quintanilla',
    });
    bartholomew = await createUser(world.server, world.adminToken, {
      email: 'bartholomew.xenakis@merino.test',
      role: 'learner',
      name: 'Bartholomew Xenakis',
    });
    chatOf = {};
    for (const learner of [zoraida, bartholomew]) {
      const chat = await request(world.server, 'POST', '/api/chats', { token: learner.token, body: { assistant_id: assistantId } });
      chatOf[learner.email] = chat.body.id;
    }
    await ask(zoraida, chatOf[zoraida.email]!, QUESTION);
    // Her own name, written small, and a capitalized name inside a sentence never become topics.
    await ask(zoraida, chatOf[zoraida.email]!, 'i am zoraida: does photosynthesis need light, as Xenakis said?');
    await ask(bartholomew, chatOf[bartholomew.email]!, 'Why does photosynthesis make sugar?');
    await ask(bartholomew, chatOf[bartholomew.email]!, 'Bartholomew wonders: quasar xylophone zeppelin?');
    for (const learner of [zoraida, bartholomew]) {
      const chat = await request(world.server, 'GET', `/api/chats/${chatOf[learner.email]}`, { token: learner.token });
      answers[learner.email] = (chat.body.messages as ChatMessage[]).filter((message) => message.role === 'assistant');
    }
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it('counts exactly what the chats did', async () => {
    const all = Object.values(answers).flat();
    expect(all).toHaveLength(4);
    // The step that combines the context tools' outputs calls no tool.
    const toolSteps = all.flatMap((answer) => answer.steps.filter((step) => step.tool !== 'orchestrator'));
    const foundNothing = all.filter((answer) => !answer.sources.some((source) => source.tool === 'simple_rag')).length;
    expect(foundNothing).toBeGreaterThanOrEqual(1);
    const response = await insights();
    expect(response.status).toBe(200);
    const { totals, days, sources, topics } = response.body;
    expect(totals).toMatchObject({
      chats: 2,
      learners: 2,
      questions: 4,
      answers: 4,
      messages: 8,
      prompt_tokens: all.reduce((sum, answer) => sum + (answer.usage?.prompt_tokens ?? 0), 0),
      completion_tokens: all.reduce((sum, answer) => sum + (answer.usage?.completion_tokens ?? 0), 0),
      tool_calls: toolSteps.length,
      tool_failures: toolSteps.filter((step) => step.state === 'error').length,
      retrieval_questions: 4,
      retrieval_empty: foundNothing,
      retrieval_empty_share: foundNothing / 4,
      feedback_up: 0,
      feedback_down: 0,
      feedback_ratio: null,
    });
    expect(totals.prompt_tokens).toBe(4 * USAGE.prompt_tokens);
    expect(totals.cost_usd).toBeCloseTo((4 * 2_000) / 1_000_000, 9);
    expect(totals.tool_calls).toBeGreaterThan(0);
    expect(totals.answer_time_median_ms).not.toBeNull();
    expect(totals.answer_time_p95_ms).toBeGreaterThanOrEqual(totals.answer_time_median_ms);
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toMatchObject({ questions: 4, answers: 4, chats: 2 });
    expect(days.slice(0, -1).every((day: { questions: number }) => day.questions === 0)).toBe(true);
    expect(sources).toEqual([{ title: 'photosynthesis.md', answers: 4 - foundNothing }]);
    expect(topics).toEqual([{ term: 'photosynthesis', questions: 3 }]);
    for (const name of NAMES) expect(response.text.toLowerCase()).not.toContain(name);
  });

  it('keeps calls made without a chat (as test runs are) out of insights, though usage counts them', async () => {
    const before = await insights();
    const usageBefore = await request(world.server, 'GET', `/api/usage?assistant_id=${assistantId}`, { token: world.adminToken });
    world.provider.enqueue({ text: 'A direct answer.', usage: USAGE });
    const direct = await request(world.server, 'POST', '/v1/chat/completions', {
      token: zoraida.token,
      body: { model: `lamb_assistant.${assistantId}`, messages: [{ role: 'user', content: 'Does photosynthesis happen at night?' }] },
    });
    expect(direct.status).toBe(200);
    let usageAfter = usageBefore;
    for (let attempt = 0; attempt < 50 && usageAfter.body.totals.requests === usageBefore.body.totals.requests; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      usageAfter = await request(world.server, 'GET', `/api/usage?assistant_id=${assistantId}`, { token: world.adminToken });
    }
    expect(usageAfter.body.totals.requests).toBeGreaterThan(usageBefore.body.totals.requests);
    expect((await insights()).body).toEqual(before.body);
  });

  it('lists ratings with their conversation only while owners may read chats, by pseudonym, and counts them either way', async () => {
    const [firstAnswer] = answers[zoraida.email]!;
    const [sugarAnswer] = answers[bartholomew.email]!;
    const rated = await request(world.server, 'PUT', `/api/chats/${chatOf[zoraida.email]}/messages/${firstAnswer!.id}/feedback`, {
      token: zoraida.token,
      body: { rating: 'down', comment: COMMENT },
    });
    expect(rated.status).toBe(200);
    const ratings = await Promise.all(
      Array.from({ length: CONCURRENT_RATINGS }, (_, index) =>
        request(world.server, 'PUT', `/api/chats/${chatOf[bartholomew.email]}/messages/${sugarAnswer!.id}/feedback`, {
          token: bartholomew.token,
          body: { rating: index % 2 === 0 ? 'down' : 'up' },
        }),
      ),
    );
    expect(ratings.every((response) => response.status === 200)).toBe(true);

    expect(await listedFeedback()).toMatchObject({ status: 200, body: { items: [], total: 0 } });
    const counted = (await insights()).body.totals as { feedback_up: number; feedback_down: number };
    expect(counted.feedback_up + counted.feedback_down).toBe(2);
    expect(counted.feedback_down).toBeGreaterThanOrEqual(1);

    await setOwnersCanReadChats(true);
    const listed = await listedFeedback();
    expect(listed.body.total).toBe(2);
    const finalSugarRating = listed.body.items.find((item: { message_id: number }) => item.message_id === sugarAnswer!.id).rating;
    expect(counted[`feedback_${finalSugarRating as 'up' | 'down'}`]).toBe(finalSugarRating === 'down' ? 2 : 1);
    const down = await listedFeedback('?rating=down');
    const mine = down.body.items.find((item: { message_id: number }) => item.message_id === firstAnswer!.id);
    expect(mine).toMatchObject({ rating: 'down', comment: COMMENT, chat_id: chatOf[zoraida.email] });
    expect(mine.learner).toMatch(/^Learner [0-9a-f]{6}$/);
    expect(mine.turns.map((turn: { role: string; content: string }) => [turn.role, turn.content])).toEqual([
      ['user', QUESTION],
      ['assistant', expect.any(String)],
    ]);
    expect(mine.turns.at(-1).id).toBe(firstAnswer!.id);
    for (const name of [...NAMES, zoraida.email, bartholomew.email]) expect(listed.text.toLowerCase()).not.toContain(name);
    const today = new Date().toISOString().slice(0, 10);
    expect((await listedFeedback(`?from=${today}&to=${today}`)).body.total).toBe(2);
    expect((await listedFeedback('?to=2001-01-01')).body.total).toBe(0);
    await setOwnersCanReadChats(false);
  });

  it('exports the timeline as CSV with a totals row', async () => {
    const json = (await insights()).body;
    const csv = await insights('?format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'day,chats,questions,answers,prompt_tokens,completion_tokens,cost_usd,tool_calls,tool_failures,feedback_up,feedback_down,retrieval_questions,retrieval_empty',
    );
    expect(lines).toHaveLength(1 + 30 + 1);
    expect(lines.at(-1)!.split(',').slice(0, 4)).toEqual(['total', '2', '4', '4']);
    expect(lines.at(-2)!.startsWith(`${json.to},2,4,4,`)).toBe(true);
  });
});
