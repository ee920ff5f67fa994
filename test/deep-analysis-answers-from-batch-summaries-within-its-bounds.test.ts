/**
 * deep_analysis through the real pipeline and tool loop, streamed and not, over real HTTP with the
 * official client on both stores: on a course written in Markdown, one passage per week, the fake
 * OpenAI server plays both the organization's small fast model (gpt-4o-mini, which summarises the
 * batches) and the assistant's model (gpt-4o, which calls the tool, answers from the summaries,
 * then answers the learner). Each stage sends a status step; the sources are exactly the passages
 * the answer cites, numbered as the answer's sources are; each bound (passages, batches, tokens,
 * time) stops the run cleanly with its reason in the result and in a status step; without a small
 * fast model the assistant's model summarises, and says so.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest, type ScriptedReply } from './fakes/fake-openai-server.js';
import { estimateTokens } from './fakes/fake-http.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { createOneToolAssistant } from './support/one-tool-assistant.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const QUESTION = 'How does ecology connect the topics of the whole course?';
const SMALL_MODEL = 'gpt-4o-mini';
const ASSISTANT_MODEL = 'gpt-4o';
const PASSAGE_COUNT = 12;

/** One week of an introductory ecology course: a heading and a paragraph, each naming ecology. */
const COURSE = [
  ['Populations', 'Population ecology studies how the number of individuals of a species grows and shrinks with births and deaths.'],
  ['Carrying capacity', 'In ecology the carrying capacity is the largest population an environment can sustain over time.'],
  ['Competition', 'Competition in ecology happens when two species need the same limited resource, such as light or water.'],
  ['Predation', 'Predator and prey cycles are a classic result of ecology: lynx and hare numbers rise and fall together.'],
  ['Food webs', 'Food webs in ecology show who eats whom; energy flows from producers to consumers and decomposers.'],
  ['Energy pyramids', 'Only about ten percent of energy passes to the next level, which ecology shows as an energy pyramid.'],
  ['Nutrient cycles', 'Ecology follows carbon and nitrogen as they cycle between living things, the soil and the air.'],
  ['Succession', 'Ecological succession, a central idea of ecology, is how a bare area becomes a forest over many years.'],
  ['Biomes', 'Biomes such as tundra, desert and rainforest are the large units of ecology, set by climate.'],
  ['Biodiversity', 'Biodiversity, the variety of life, makes ecosystems resilient; ecology measures it with indices.'],
  ['Invasive species', 'Invasive species upset the balance that ecology describes, often because they lack predators.'],
  ['Conservation', 'Conservation applies ecology to protect habitats, from reserves to corridors that connect them.'],
] as const;

const SUMMARY_SYSTEM = 'You summarise numbered passages';
const ANSWER_SYSTEM = 'Answer the question from these summaries';

interface Message {
  role: string;
  content: string;
  tool_call_id?: string;
}

function messagesOf(recorded: RecordedRequest): Message[] {
  return (recorded.body?.messages ?? []) as Message[];
}

function isSummary(recorded: RecordedRequest): boolean {
  return messagesOf(recorded)[0]?.content.startsWith(SUMMARY_SYSTEM) === true;
}

function isAnswer(recorded: RecordedRequest): boolean {
  return messagesOf(recorded)[0]?.content.startsWith(ANSWER_SYSTEM) === true;
}

/** The passages of a summary call, by their number in the analysis. */
function passagesIn(recorded: RecordedRequest): Map<number, string> {
  const listed = messagesOf(recorded)[1]!.content.split('Passages:\n')[1]!;
  return new Map(
    listed.split(/\n\n(?=\[\d+\] \()/).map((entry) => {
      const match = /^\[(\d+)\] \([^)]*\) ([\s\S]*)$/.exec(entry)!;
      return [Number(match[1]), match[2]!];
    }),
  );
}

describe.each(TEST_DIALECTS)('deep_analysis on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  let client: OpenAI;
  let knowledgeBase: number;
  let organizationId: number;
  /** Every reply the fake gave to a call of the analysis, for the token count. */
  let analysisReplies: string[];
  /** Summary calls from this one on (counted from 1) wait long before answering. */
  let slowFromSummary: number;

  const chatRequests = () => fake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));
  const summaryRequests = () => chatRequests().filter(isSummary);
  const toolResult = () =>
    chatRequests()
      .flatMap(messagesOf)
      .find((message) => message.role === 'tool')?.content ?? '';

  /** Summaries cite the first and last passage of their batch; the answer cites [1] and [9]; then the learner's answer. */
  function respond(recorded: RecordedRequest): ScriptedReply {
    if (isSummary(recorded)) {
      const numbers = [...passagesIn(recorded).keys()];
      const text = `- The passages bear on the question [${numbers[0]}] and [${numbers.at(-1)}].`;
      analysisReplies.push(text);
      const slow = summaryRequests().length >= slowFromSummary;
      return { text, ...(slow && { delayMs: 4_000 }) };
    }
    if (isAnswer(recorded)) {
      const text = 'Populations [1] are limited as succession shows [9]; see also [99].';
      analysisReplies.push(text);
      return { text };
    }
    if (!messagesOf(recorded).some((message) => message.role === 'tool'))
      return {
        toolCalls: [{ id: `call_${chatRequests().length}`, name: 'deep_analysis', arguments: JSON.stringify({ question: QUESTION }) }],
      };
    return { text: 'Ecology links populations [1] to succession [2].' };
  }

  async function createAssistant(config: Record<string, unknown> = {}): Promise<string> {
    const assistant = {
      name: 'Ecology tutor',
      systemPrompt: 'You teach ecology.',
      llm: ASSISTANT_MODEL,
      toolType: 'deep_analysis',
      knowledgeBaseId: knowledgeBase,
    };
    return createOneToolAssistant(server, token, { ...assistant, config });
  }

  async function streamed(
    model: string,
  ): Promise<{ statuses: Array<{ id: string; state: string; message: string; parent?: string }>; text: string; sources: any[] }> {
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: QUESTION }] }),
    });
    expect(response.status).toBe(200);
    const lines = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)));
    return {
      statuses: lines.filter((line) => line.status).map((line) => line.status),
      text: lines.flatMap((line) => line.choices?.[0]?.delta?.content ?? []).join(''),
      sources: lines.flatMap((line) => line.sources ?? []),
    };
  }

  const setSmallFastModel = (model: { connector: string; model: string } | null) =>
    request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token, body: { small_fast_model: model } });

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer(dialect, {
      environment: {
        INGESTION_POLL_MS: '20',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: fake.baseUrl,
        DEEP_ANALYSIS_PASSAGES: String(PASSAGE_COUNT),
        DEEP_ANALYSIS_BATCH_PASSAGES: '4',
        DEEP_ANALYSIS_PARALLEL_BATCHES: '2',
      },
    });
    token = await loginAsAdmin(server);
    client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    organizationId = (await request(server, 'GET', '/api/me', { token })).body.organization_id;
    knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Ecology course' } })).body.id;
    const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
      token,
      body: {
        documents: COURSE.map(([heading, text], week) => ({
          text: `## ${heading}\n\n${text}`,
          metadata: { filename: `week-${String(week + 1).padStart(2, '0')}.md` },
        })),
      },
    });
    expect(queued.status, queued.text).toBe(202);
    for (const { job_id } of queued.body.documents)
      expect((await waitForJob(server, token, knowledgeBase, job_id)).status).toBe('completed');
    expect((await setSmallFastModel({ connector: 'openai', model: SMALL_MODEL })).status).toBe(200);
  });

  beforeEach(() => {
    fake.reset();
    analysisReplies = [];
    slowFromSummary = Number.POSITIVE_INFINITY;
    fake.setResponder(respond);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it('summarises every passage in batches with the small fast model, answers with the assistant model, and cites the passages it used (not streamed)', async () => {
    const model = await createAssistant();
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] });
    expect(answer.choices[0]!.message.content).toBe('Ecology links populations [1] to succession [2].');

    const summaries = summaryRequests();
    expect(summaries.map((recorded) => recorded.body.model)).toEqual([SMALL_MODEL, SMALL_MODEL, SMALL_MODEL]);
    const read = new Map(summaries.flatMap((recorded) => [...passagesIn(recorded)]));
    expect([...read.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: PASSAGE_COUNT }, (_, index) => index + 1));
    for (const text of read.values()) expect(COURSE.some(([, passage]) => text.includes(passage))).toBe(true);
    const answerCall = chatRequests().find(isAnswer)!;
    expect(answerCall.body.model).toBe(ASSISTANT_MODEL);
    expect(messagesOf(answerCall)[1]!.content).toContain('[1] and [4]');

    // The answer cited [1] and [9] (and a [99] no passage has): those two passages are the sources, numbered 1 and 2.
    const sources = (answer as unknown as { sources: Array<{ text: string; title: string; tool: string }> }).sources;
    expect(sources).toHaveLength(2);
    expect(sources.map((source) => source.text)).toEqual([read.get(1), read.get(9)]);
    expect(sources.every((source) => source.tool === 'deep_analysis')).toBe(true);
    const result = toolResult();
    expect(result).toContain('Deep analysis of 12 passages: 3 of 3 batches summarised.');
    expect(result).toContain('Populations [1] are limited as succession shows [2]; see also .');
    expect(result).not.toContain('Stopped early');
  });

  it('streams a status step per stage, nested under the call', async () => {
    const model = await createAssistant();
    const { statuses, text, sources } = await streamed(model);
    expect(text).toBe('Ecology links populations [1] to succession [2].');
    expect(sources).toHaveLength(2);
    const call = statuses.find((status) => status.message === 'calling deep_analysis')!;
    const nested = statuses.filter((status) => status.parent === call.id).map((status) => `${status.state} ${status.message}`);
    expect(nested).toEqual([
      'running gathering up to 12 passages',
      'done gathered 12 passages',
      `running summarising 3 batches with openai/${SMALL_MODEL}`,
      'done summarised 3 of 3 batches',
      `running answering from 3 summaries with openai/${ASSISTANT_MODEL}`,
      'done answered',
    ]);
    expect(statuses.at(-1)).toMatchObject({ id: call.id, state: 'done' });
  });

  const bounds: Array<{ bound: string; config: Record<string, unknown>; slowFrom?: number; check: () => void }> = [
    {
      bound: 'passage',
      config: { passages: 5 },
      check: () => expect(summaryRequests().flatMap((recorded) => [...passagesIn(recorded).keys()])).toHaveLength(5),
    },
    {
      bound: 'batch',
      config: { batch_size: 2, max_batches: 2 },
      check: () => {
        expect(summaryRequests()).toHaveLength(2);
        expect(summaryRequests().flatMap((recorded) => [...passagesIn(recorded).keys()])).toEqual([1, 2, 3, 4]);
      },
    },
    {
      bound: 'token',
      config: { max_tokens: 2_800 },
      check: () => {
        const calls = chatRequests().filter((recorded) => isSummary(recorded) || isAnswer(recorded));
        expect(summaryRequests().length).toBeGreaterThan(0);
        expect(summaryRequests().length).toBeLessThan(3);
        const prompts = calls.map((recorded) =>
          estimateTokens(
            messagesOf(recorded)
              .map((message) => message.content)
              .join('\n'),
          ),
        );
        const used =
          prompts.reduce((sum, tokens) => sum + tokens, 0) + analysisReplies.reduce((sum, reply) => sum + estimateTokens(reply), 0);
        expect(used).toBeLessThanOrEqual(2_800);
      },
    },
    {
      // The first batch's summary answers at once and the others after 4 s: the bound falls between.
      // At 1.5 s, a CI rehearsal on a loaded machine had not summarised even the first batch in time.
      bound: 'time',
      config: { time_ms: 3_000 },
      slowFrom: 2,
      check: () => expect(toolResult()).toMatch(/: 1 of 3 batches summarised/),
    },
  ];

  it.each(bounds)(
    'stops cleanly at the $bound bound and says so in the result and a status step',
    async ({ bound, config, slowFrom, check }) => {
      slowFromSummary = slowFrom ?? Number.POSITIVE_INFINITY;
      const model = await createAssistant(config);
      const { statuses, text } = await streamed(model);
      expect(text).toBe('Ecology links populations [1] to succession [2].');
      expect(toolResult()).toContain(`Stopped early at the ${bound} bound`);
      const reason = { passage: 'passages', batch: 'batches', token: 'tokens', time: 'time' }[bound];
      expect(statuses.map((status) => status.message)).toContain(`stopped early at the ${reason} bound`);
      expect(chatRequests().some(isAnswer)).toBe(true);
      check();
    },
  );

  it('says no summary could be made, and lists no source, when the time bound passes before any summary', async () => {
    slowFromSummary = 1;
    const model = await createAssistant({ time_ms: 600 });
    const { statuses, sources } = await streamed(model);
    expect(toolResult()).toContain('No summary could be made within the bounds.');
    expect(toolResult()).toContain('Stopped early at the time bound');
    expect(sources).toEqual([]);
    expect(chatRequests().some(isAnswer)).toBe(false);
    expect(statuses.map((status) => `${status.state} ${status.message}`)).toContain('error summarised 0 of 3 batches');
  });

  it("summarises with the assistant's model when the organization names no small fast model, and says so", async () => {
    expect((await setSmallFastModel(null)).status).toBe(200);
    try {
      const model = await createAssistant();
      const { statuses } = await streamed(model);
      expect(summaryRequests().map((recorded) => recorded.body.model)).toEqual([ASSISTANT_MODEL, ASSISTANT_MODEL, ASSISTANT_MODEL]);
      expect(statuses.map((status) => status.message)).toContain(
        `summarising 3 batches with openai/${ASSISTANT_MODEL} (no small fast model is set: the assistant's model)`,
      );
    } finally {
      await setSmallFastModel({ connector: 'openai', model: SMALL_MODEL });
    }
  });
});
