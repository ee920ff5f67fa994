/**
 * Benchmark of the completion pipeline on SQLite and on PostgreSQL, against a fake OpenAI server
 * that answers at once, so what is measured is Merino itself:
 *
 *  1. Overhead. A multi-tool assistant (openai connector) whose two single_file_rag tools read two
 *     uploaded ~20 KB markdown files into `{file}`, asked without streaming through the official
 *     `openai` SDK, against the floor: the same SDK sending the prompt Merino builds straight to
 *     the fake. At concurrency 1 and at PIPELINE_CONCURRENCY.
 *  2. Streaming. STREAMS streams, STREAM_CONCURRENCY at once, of STREAM_CHUNKS chunks
 *     STREAM_CHUNK_DELAY_MS apart, through the same assistant with `stream: true`: time to the
 *     first token, whole-stream time, chunks per second; the same streams straight from the fake
 *     as the floor.
 *
 *   npm run bench -- bench/pipeline.bench.ts
 *   (PIPELINE_REQUESTS=300 PIPELINE_CONCURRENT_REQUESTS=2000 PIPELINE_CONCURRENCY=32
 *    STREAMS=1000 STREAM_CONCURRENCY=200 STREAM_CHUNKS=40 STREAM_CHUNK_DELAY_MS=10 change the load)
 *
 * Client, Merino and the fake share one Node process, as in the HTTP API benchmark: figures under
 * load include the client's and the fake's work. It prints figures and never passes or fails on
 * them; it checks only that no request failed and that every answer arrived whole.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { lastUserMessageText, startFakeOpenAiServer, type FakeOpenAiServer, type ScriptedReply } from '../test/fakes/fake-openai-server.js';
import { TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from '../test/support/test-server.js';
import {
  ascending,
  describeError,
  measure,
  milliseconds,
  percentile,
  printFigures,
  printTable,
  runPool,
  type Figures,
  wholeNumberSetting,
} from './support/measure.js';

const SERIAL_REQUESTS = wholeNumberSetting('PIPELINE_REQUESTS', 300);
const CONCURRENT_REQUESTS = wholeNumberSetting('PIPELINE_CONCURRENT_REQUESTS', 2_000);
const CONCURRENCY = wholeNumberSetting('PIPELINE_CONCURRENCY', 32);
/** Calls made before each measured series and not counted: connection pools and JIT warm up. */
const WARM_UP_REQUESTS = 50;
const STREAMS = wholeNumberSetting('STREAMS', 1_000);
const STREAM_CONCURRENCY = wholeNumberSetting('STREAM_CONCURRENCY', 200);
const STREAM_CHUNKS = wholeNumberSetting('STREAM_CHUNKS', 40);
const STREAM_CHUNK_DELAY_MS = wholeNumberSetting('STREAM_CHUNK_DELAY_MS', 10);

const FILE_CHARACTERS = 20_000;
const PROVIDER_KEY = 'sk-bench-provider-key-0123456789';
const UPSTREAM_MODEL = 'gpt-4o-mini';
const ANSWER = 'Mitochondria turn glucose into ATP.';
const QUESTION = 'What do mitochondria do?';
/** Given to the fake, which otherwise estimates the prompt's tokens, code point by code point, on every call. */
const USAGE = { prompt_tokens: 10_000, completion_tokens: 50 };
const STREAM_PIECES = Array.from({ length: STREAM_CHUNKS }, (_, index) => `word${index} `);
const STREAMED_ANSWER = STREAM_PIECES.join('');
/** The fake sends a role chunk, the content chunks, a finish chunk and a usage chunk, each after the delay but the first. */
const STREAM_FLOOR_MS = (STREAM_CHUNKS + 2) * STREAM_CHUNK_DELAY_MS;

interface CourseFile {
  name: string;
  /** Appears once in the file, so the fake can tell that the file reached the prompt. */
  marker: string;
  topic: string;
}

const COURSE_FILES: readonly CourseFile[] = [
  { name: 'cell-biology.md', marker: 'MARKER-CELLS-5b1e', topic: 'cell biology' },
  { name: 'genetics.md', marker: 'MARKER-GENES-9c4d', topic: 'genetics' },
];

/** Deterministic course notes of about FILE_CHARACTERS characters: headings, paragraphs and lists. */
function courseNotes(file: CourseFile): string {
  const parts = [`# Notes on ${file.topic}\n\nReference ${file.marker}.\n`];
  for (let section = 1; parts.join('').length < FILE_CHARACTERS; section += 1) {
    parts.push(
      `\n## Section ${section}: ${file.topic}, part ${section}\n\n` +
        `In ${file.topic}, lesson ${section} explains how structure and function depend on each other. ` +
        `Students compare examples, write short answers and check them against the worked solutions at the end of the unit.\n\n` +
        `- Key idea ${section}.1: observe before you explain.\n- Key idea ${section}.2: name every part you draw.\n- Key idea ${section}.3: link the cause to the effect.\n`,
    );
  }
  return parts.join('').slice(0, FILE_CHARACTERS);
}

/** Both files in the last user message, or the run did not do what is being measured. */
function promptHoldsBothFiles(body: unknown): boolean {
  const text = lastUserMessageText(body);
  return COURSE_FILES.every((file) => text.includes(file.marker));
}

/** Answers `reply` to every prompt that holds both files, and a 500 to any other, so a silently failed tool counts as a failure. */
function answerWith(fake: FakeOpenAiServer, reply: ScriptedReply): void {
  fake.setResponder((recorded) =>
    promptHoldsBothFiles(recorded.body) ? reply : { status: 500, errorMessage: 'the prompt lacks a course file' },
  );
}

async function upload(server: TestServer, token: string, name: string, content: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/markdown' }), name);
  const response = await fetch(`${server.baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`uploading ${name} failed with ${response.status}: ${text}`);
  return (JSON.parse(text) as { file_path: string }).file_path;
}

interface Setup {
  server: TestServer;
  merino: OpenAI;
  direct: OpenAI;
  model: string;
  /** The messages Merino sends the provider for QUESTION, which the floor sends straight to the fake. */
  upstreamMessages: ChatCompletionMessageParam[];
  promptCharacters: number;
}

async function setUp(dialect: Dialect, fake: FakeOpenAiServer): Promise<Setup> {
  const server = await startTestServer(dialect, {
    // The benchmark measures the pipeline, not the per-user chat rate limit, which would refuse most of its load.
    environment: {
      LOG_LEVEL: 'warn',
      OPENAI_BASE_URL: fake.baseUrl,
      OPENAI_API_KEY: PROVIDER_KEY,
      CHAT_REQUESTS_PER_USER_MAX: '1000000',
      CHAT_REQUESTS_PER_API_KEY_MAX: '1000000',
    },
  });
  try {
    const adminToken = await loginAsAdmin(server);
    const creator = await createUser(server, adminToken, { email: 'pipeline-creator@merino.test', role: 'creator' });
    const key = (await request(server, 'POST', '/api/api-keys', { token: creator.token, body: { name: 'pipeline bench' } })).body
      .key as string;
    const paths = [];
    for (const file of COURSE_FILES) paths.push(await upload(server, creator.token, file.name, courseNotes(file)));
    const created = await request(server, 'POST', '/api/assistants', {
      token: creator.token,
      body: {
        name: 'Biology tutor',
        system_prompt: 'You are a patient biology tutor. Answer from the course notes.',
        prompt_template: 'Course notes:\n{file}\n\nQuestion: {user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: UPSTREAM_MODEL,
          tools: paths.map((filePath) => ({ type: 'single_file_rag', enabled: true, config: { file_path: filePath } })),
        },
      },
    });
    if (created.status !== 201) throw new Error(`creating the assistant failed with ${created.status}: ${created.text}`);
    const merino = new OpenAI({ apiKey: key, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    const direct = new OpenAI({ apiKey: PROVIDER_KEY, baseURL: fake.baseUrl, maxRetries: 0 });
    const model = `lamb_assistant.${created.body.id}`;

    answerWith(fake, { text: ANSWER, usage: USAGE });
    await merino.chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] });
    const upstream = fake.requests.at(-1)?.body as { messages?: ChatCompletionMessageParam[] } | undefined;
    if (!upstream?.messages || !promptHoldsBothFiles(upstream)) throw new Error('the assistant did not put both files into the prompt');
    const promptCharacters = upstream.messages.reduce(
      (sum, message) => sum + (typeof message.content === 'string' ? message.content.length : 0),
      0,
    );
    return { server, merino, direct, model, upstreamMessages: upstream.messages, promptCharacters };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** A non-streamed completion that must come back whole; answers 200 or throws. */
async function complete(client: OpenAI, model: string, messages: ChatCompletionMessageParam[]): Promise<number> {
  const completion = await client.chat.completions.create({ model, messages });
  const content = completion.choices[0]?.message.content;
  if (content !== ANSWER) throw new Error(`incomplete answer: ${JSON.stringify(content)}`);
  return 200;
}

interface OverheadRun {
  concurrency: number;
  floor: Figures;
  merino: Figures;
}

async function measureOverhead(setup: Setup, fake: FakeOpenAiServer): Promise<OverheadRun[]> {
  answerWith(fake, { text: ANSWER, usage: USAGE });
  const floorCall = () => complete(setup.direct, UPSTREAM_MODEL, setup.upstreamMessages);
  const merinoCall = () => complete(setup.merino, setup.model, [{ role: 'user', content: QUESTION }]);
  const runs: OverheadRun[] = [];
  for (const [count, concurrency] of [
    [SERIAL_REQUESTS, 1],
    [CONCURRENT_REQUESTS, CONCURRENCY],
  ] as const) {
    await measure('warm-up', WARM_UP_REQUESTS, concurrency, floorCall);
    const floor = await measure(`(a) fake direct, SDK, c=${concurrency}`, count, concurrency, floorCall);
    await measure('warm-up', WARM_UP_REQUESTS, concurrency, merinoCall);
    const merino = await measure(`(b) Merino /v1/chat/completions, c=${concurrency}`, count, concurrency, merinoCall);
    runs.push({ concurrency, floor, merino });
  }
  return runs;
}

interface StreamFigures {
  name: string;
  streams: number;
  seconds: number;
  contentChunks: number;
  firstTokenP50: number;
  firstTokenP99: number;
  totalP50: number;
  totalP99: number;
  errors: number;
  incomplete: number;
  firstError?: string;
}

/** Streams `count` answers, `concurrency` at once, timing the first content token and the whole stream. */
async function measureStreams(
  name: string,
  count: number,
  concurrency: number,
  open: () => Promise<AsyncIterable<OpenAI.ChatCompletionChunk>>,
): Promise<StreamFigures> {
  const firstTokens: number[] = [];
  const totals: number[] = [];
  let contentChunks = 0;
  let errors = 0;
  let incomplete = 0;
  let firstError: string | undefined;
  const seconds = await runPool(count, concurrency, async () => {
    const begin = performance.now();
    let firstToken: number | undefined;
    let text = '';
    let pieces = 0;
    let finishReason: string | null | undefined;
    try {
      for await (const chunk of await open()) {
        const choice = chunk.choices[0];
        const content = choice?.delta.content;
        if (content) {
          firstToken ??= performance.now() - begin;
          text += content;
          pieces += 1;
        }
        if (choice?.finish_reason) finishReason = choice.finish_reason;
      }
    } catch (error) {
      errors += 1;
      firstError ??= describeError(error);
      return;
    } finally {
      contentChunks += pieces;
    }
    totals.push(performance.now() - begin);
    if (firstToken !== undefined) firstTokens.push(firstToken);
    if (text !== STREAMED_ANSWER || pieces !== STREAM_CHUNKS || finishReason !== 'stop') {
      incomplete += 1;
      firstError ??= `incomplete stream: ${pieces} chunks, finish ${String(finishReason)}`;
    }
  });
  const sortedFirstTokens = ascending(firstTokens);
  const sortedTotals = ascending(totals);
  return {
    name,
    streams: count,
    seconds,
    contentChunks,
    firstTokenP50: percentile(sortedFirstTokens, 0.5),
    firstTokenP99: percentile(sortedFirstTokens, 0.99),
    totalP50: percentile(sortedTotals, 0.5),
    totalP99: percentile(sortedTotals, 0.99),
    errors,
    incomplete,
    ...(firstError !== undefined && { firstError }),
  };
}

async function measureStreaming(setup: Setup, fake: FakeOpenAiServer): Promise<StreamFigures[]> {
  answerWith(fake, { chunks: STREAM_PIECES, chunkDelayMs: STREAM_CHUNK_DELAY_MS, usage: USAGE });
  const direct = () => setup.direct.chat.completions.create({ model: UPSTREAM_MODEL, stream: true, messages: setup.upstreamMessages });
  const merino = () =>
    setup.merino.chat.completions.create({ model: setup.model, stream: true, messages: [{ role: 'user', content: QUESTION }] });
  return [
    await measureStreams('(a) fake direct, SDK stream', STREAMS, STREAM_CONCURRENCY, direct),
    await measureStreams('(b) Merino /v1/chat/completions stream', STREAMS, STREAM_CONCURRENCY, merino),
  ];
}

function printOverhead(dialect: Dialect, setup: Setup, runs: OverheadRun[]): void {
  printFigures(
    `${dialect}: non-streamed completion, multi-tool assistant with 2 x single_file_rag (${COURSE_FILES.length} x ${FILE_CHARACTERS.toLocaleString('en-US')} chars, upstream prompt ${setup.promptCharacters.toLocaleString('en-US')} chars); ${SERIAL_REQUESTS} requests at c=1, ${CONCURRENT_REQUESTS} at c=${CONCURRENCY}`,
    runs.flatMap((run) => [run.floor, run.merino]),
  );
  printTable(
    `${dialect}: Merino overhead, (b) - (a)`,
    [
      { label: 'concurrency', width: 44 },
      { label: 'p50 ms', width: 8 },
      { label: 'p99 ms', width: 8 },
      { label: 'req/s (b)/(a)', width: 14 },
    ],
    runs.map((run) => [
      `c=${run.concurrency}`,
      milliseconds(run.merino.p50 - run.floor.p50),
      milliseconds(run.merino.p99 - run.floor.p99),
      `${((100 * run.merino.requestsPerSecond) / run.floor.requestsPerSecond).toFixed(0)}%`,
    ]),
  );
}

function printStreaming(dialect: Dialect, rows: StreamFigures[]): void {
  printTable(
    `${dialect}: streaming, ${STREAMS} streams, ${STREAM_CONCURRENCY} at once, ${STREAM_CHUNKS} chunks ${STREAM_CHUNK_DELAY_MS} ms apart (a stream cannot take less than ~${STREAM_FLOOR_MS} ms)`,
    [
      { label: 'stream', width: 44 },
      { label: 'TTFT p50', width: 9 },
      { label: 'TTFT p99', width: 9 },
      { label: 'total p50', width: 10 },
      { label: 'total p99', width: 10 },
      { label: 'chunks/s', width: 9 },
      { label: 'streams/s', width: 10 },
      { label: 'errors', width: 7 },
      { label: 'incomplete', width: 10 },
    ],
    rows.map((row) => [
      row.name,
      milliseconds(row.firstTokenP50),
      milliseconds(row.firstTokenP99),
      milliseconds(row.totalP50),
      milliseconds(row.totalP99),
      (row.contentChunks / row.seconds).toFixed(0),
      (row.streams / row.seconds).toFixed(1),
      String(row.errors),
      String(row.incomplete),
    ]),
  );
  for (const row of rows) {
    if (row.firstError !== undefined) process.stdout.write(`  ${row.name}: first failure: ${row.firstError}\n`);
  }
}

describe.each(TEST_DIALECTS)('the completion pipeline on %s', (dialect) => {
  it('serves the benchmark load without a failed request or a cut answer', { timeout: 600_000 }, async () => {
    const fake = await startFakeOpenAiServer({ apiKey: PROVIDER_KEY });
    try {
      const setup = await setUp(dialect, fake);
      try {
        const overhead = await measureOverhead(setup, fake);
        printOverhead(dialect, setup, overhead);
        const streaming = await measureStreaming(setup, fake);
        printStreaming(dialect, streaming);
        const failures = [
          ...overhead.flatMap((run) => [run.floor, run.merino]).map((row) => [row.name, row.errors]),
          ...streaming.map((row) => [row.name, row.errors + row.incomplete]),
        ];
        expect(failures).toEqual(failures.map(([name]) => [name, 0]));
      } finally {
        await setup.server.close();
      }
    } finally {
      await fake.close();
    }
  });
});
