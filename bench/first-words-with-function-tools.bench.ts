/**
 * How long the first words of a prose answer wait in Merino when the assistant offers function
 * tools (issue 29 item 1), beside the same answer from an assistant without them. A real server
 * over loopback streams a fake model's prose, a chunk every CHUNK_DELAY_MS; the bench prints the
 * characters the model had sent, and the milliseconds that passed, between the model's first content
 * and the client's first content (the client reads `/v1/chat/completions` with fetch, in this
 * process, so both ends share one clock). Medians and worst over RUNS answers per assistant; the
 * last row is a model whose template may open reasoning, for which the wait remains.
 *
 *   npm run bench -- bench/first-words-with-function-tools.bench.ts
 *
 * Target: the first content chunk passes through with no added wait (0 characters held back, the
 * milliseconds of one loopback hop). Prints, never asserts on time.
 */
import { describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../test/fakes/fake-openai-server.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from '../test/support/test-server.js';
import { ascending, milliseconds, percentile, printTable } from './support/measure.js';

const RUNS = 10;
const WEATHER = [{ type: 'weather' }];
const WARM_UP_RUNS = 2;
const CHUNK_DELAY_MS = 40;
// A short prose answer of about 300 characters, in the word-sized pieces a local model streams.
const PROSE_PIECES = (
  'Photosynthesis is the process by which green plants turn light into chemical energy. ' +
  'In the chloroplasts, light splits water and releases oxygen, while the Calvin cycle fixes carbon ' +
  'dioxide into sugars that the plant uses to grow. Without it there would be no oxygen to breathe.'
).match(/\S+\s*/g)!;

interface FirstWords {
  /** Characters the model had sent when the client received its first content. */
  charactersSent: number;
  /** From the model's first content written to the client's first content read. */
  wait: number;
  /** Characters in the client's first content chunk. */
  firstChunk: number;
}

async function createAssistant(server: TestServer, token: string, setup: { llm: string; tools: unknown[] }): Promise<string> {
  const { llm, tools } = setup;
  const created = await request(server, 'POST', '/api/assistants', {
    token,
    body: {
      name: `Tutor ${llm} ${tools.length}`,
      system_prompt: 'You teach biology.',
      metadata: { assistant_type: 'multi_tool', connector: 'openai', llm, tools },
    },
  });
  expect(created.status, created.text).toBe(201);
  return `lamb_assistant.${created.body.id}`;
}

/** The first non-empty content of a streamed completion, with when it was read. */
async function firstContent(response: Response): Promise<{ text: string; at: number }> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    const at = performance.now();
    buffered += decoder.decode(bytes, { stream: true });
    for (const block of buffered.split('\n\n').slice(0, -1)) {
      const data = block.trim().replace(/^data: /, '');
      if (data === '[DONE]' || data === '') continue;
      const content = (JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content !== '') return { text: content, at };
    }
    buffered = buffered.slice(buffered.lastIndexOf('\n\n') + 2);
  }
  throw new Error('the answer ended without content');
}

async function measureOnce(server: TestServer, provider: FakeOpenAiServer, token: string, model: string): Promise<FirstWords> {
  const sent: Array<{ at: number; characters: number }> = [];
  let total = 0;
  provider.enqueue({
    chunks: PROSE_PIECES,
    chunkDelayMs: CHUNK_DELAY_MS,
    onContentSent: (content) => {
      total += content.length;
      sent.push({ at: performance.now(), characters: total });
    },
  });
  const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'What is photosynthesis?' }] }),
  });
  expect(response.status).toBe(200);
  const first = await firstContent(response);
  await response.body?.cancel();
  const charactersSent = sent.filter((entry) => entry.at <= first.at).at(-1)?.characters ?? 0;
  return { charactersSent, wait: first.at - sent[0]!.at, firstChunk: first.text.length };
}

function median(values: number[]): number {
  return percentile(ascending(values), 0.5);
}

describe('first words of a prose answer with function tools offered', () => {
  it('prints the characters and milliseconds between the model’s first content and the client’s', async () => {
    const provider = await startFakeOpenAiServer();
    const server = await startTestServer('sqlite', { environment: { OPENAI_BASE_URL: provider.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    try {
      const token = await loginAsAdmin(server);
      const assistants = [
        { label: 'gpt-4o-mini, function tools', model: await createAssistant(server, token, { llm: 'gpt-4o-mini', tools: WEATHER }) },
        { label: 'gpt-4o-mini, no tools', model: await createAssistant(server, token, { llm: 'gpt-4o-mini', tools: [] }) },
        // A family whose template may open reasoning: `auto` still decides from the output's first characters.
        { label: 'qwen3:8b, function tools', model: await createAssistant(server, token, { llm: 'qwen3:8b', tools: WEATHER }) },
      ];
      const rows: string[][] = [];
      for (const assistant of assistants) {
        const measured: FirstWords[] = [];
        for (let run = 0; run < RUNS + WARM_UP_RUNS; run += 1) {
          const figures = await measureOnce(server, provider, token, assistant.model);
          if (run >= WARM_UP_RUNS) measured.push(figures);
        }
        const characters = measured.map((figures) => figures.charactersSent);
        const waits = measured.map((figures) => figures.wait);
        rows.push([
          assistant.label,
          `${median(characters)} / ${Math.max(...characters)}`,
          `${milliseconds(median(waits))} / ${milliseconds(Math.max(...waits))}`,
          String(median(measured.map((figures) => figures.firstChunk))),
        ]);
      }
      printTable(
        `Model's first content to the client's first content, ${RUNS} prose answers of ${PROSE_PIECES.join('').length} characters, a chunk every ${CHUNK_DELAY_MS} ms`,
        [
          { label: 'assistant', width: 28 },
          { label: 'chars sent, median / worst', width: 28 },
          { label: 'ms, median / worst', width: 22 },
          { label: 'first chunk chars', width: 18 },
        ],
        rows,
      );
    } finally {
      await server.close();
      await provider.close();
    }
  });
});
