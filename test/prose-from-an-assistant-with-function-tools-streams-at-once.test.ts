/**
 * Issue 29 item 1: an assistant that offers function tools reads the model's text for tool calls
 * written as text, and that reading must not hold prose back. Over real HTTP, with the fake model
 * streaming word by word and holding its last word back until the test lets it go, the client gets
 * the model's first chunk, whole, while the model has not finished. And a call whose opening the
 * model splits across chunks (`<tool` + `_call>`, `[TOOL` + `_CALLS]`, a ```json fence, a bare
 * `{"na` + `me"…`) is still run and never reaches the client as answer text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastContentGate, startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { startFakeOpenMeteoServer, type FakeOpenMeteoServer } from './fakes/fake-open-meteo-server.js';
import { serverSentEvents } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const PROSE = ['Photosynthesis ', 'turns ', 'light ', 'into ', 'sugar.'];
/** Only a failure waits this long: with the fix the first chunk comes at once. */
const FIRST_CONTENT_BOUND_MS = 15_000;

interface StreamChunk {
  choices?: Array<{ delta?: { content?: string | null } }>;
}

function contentOf(events: unknown[]): string {
  return events
    .filter((event): event is StreamChunk => typeof event === 'object' && event !== null)
    .map((event) => event.choices?.[0]?.delta?.content ?? '')
    .join('');
}

/** Reads a streamed completion's events until one carries content; answers that content and the reader. */
async function readUntilFirstContent(response: Response): Promise<{ first: string; rest: () => Promise<string> }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let received = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the stream ended before any content');
    received += decoder.decode(value, { stream: true });
    const complete = received.slice(0, received.lastIndexOf('\n\n') + 2);
    const first = contentOf(serverSentEvents(complete));
    if (first !== '')
      return {
        first,
        rest: async () => {
          for (let next = await reader.read(); !next.done; next = await reader.read())
            received += decoder.decode(next.value, { stream: true });
          return contentOf(serverSentEvents(received));
        },
      };
  }
}

describe.each(TEST_DIALECTS)('prose from an assistant with function tools on %s', (dialect) => {
  let provider: FakeOpenAiServer;
  let weather: FakeOpenMeteoServer;
  let server: TestServer;
  let token: string;
  let model: string;

  beforeAll(async () => {
    provider = await startFakeOpenAiServer();
    weather = await startFakeOpenMeteoServer();
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_BASE_URL: provider.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        OPEN_METEO_GEOCODING_URL: weather.geocodingUrl,
        OPEN_METEO_FORECAST_URL: weather.forecastUrl,
      },
    });
    token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Science tutor',
        system_prompt: 'You teach science.',
        metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [{ type: 'weather' }] },
      },
    });
    expect(created.status, created.text).toBe(201);
    model = `lamb_assistant.${created.body.id}`;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(weather)?.close();
    await possiblyUnset(provider)?.close();
  });

  function ask(question: string): Promise<Response> {
    return fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: question }] }),
    });
  }

  it("passes the model's first chunk to the client, whole, while the model has not finished", async () => {
    const { lastContentReleased, release } = lastContentGate();
    provider.enqueue({ chunks: PROSE, chunkDelayMs: 5, lastContentReleased });
    const response = await ask('What is photosynthesis?');
    expect(response.status).toBe(200);
    const reading = readUntilFirstContent(response);
    const bound = AbortSignal.timeout(FIRST_CONTENT_BOUND_MS);
    const held = new Promise<never>((_resolve, reject) => {
      bound.addEventListener('abort', () => reject(new Error('no content reached the client while the model was still answering')));
    });
    try {
      const { first, rest } = await Promise.race([reading, held]);
      // The model's last word is still held back by the fake: the client has words before the model finished.
      expect(PROSE.join('').startsWith(first)).toBe(true);
      expect(first.startsWith(PROSE[0]!)).toBe(true);
      release();
      expect(await rest()).toBe(PROSE.join(''));
    } finally {
      release();
    }
  });

  it.each([
    ['a tagged call', ['Let me check. <tool', '_call>{"na', 'me": "get_weather", "argu', 'ments": {"location": "Paris"}}</tool_call>']],
    ['a Mistral call', ['Let me check. [TOOL', '_CALLS]get_', 'weather[ARGS]{"location": ', '"Paris"}']],
    ['a JSON fence', ['Let me check. ``', '`js', 'on\n{"name": "get_weather", ', '"arguments": {"location": "Paris"}}\n```']],
    ['a bare JSON call', ['Let me check. {', '"na', 'me": "get_weather", "arguments": {"location": "Paris"}}']],
  ])('runs %s whose opening is split across chunks and never shows its text', async (_label, chunks) => {
    provider.enqueue({ chunks, chunkDelayMs: 5 }, { chunks: ['It is ', 'sunny in Paris.'], chunkDelayMs: 5 });
    const requestsBefore = weather.requests.length;
    const response = await ask('What is the weather in Paris?');
    expect(response.status).toBe(200);
    const content = contentOf(serverSentEvents(await response.text()));
    expect(content).toBe('Let me check. It is sunny in Paris.');
    expect(weather.requests.length).toBeGreaterThan(requestsBefore);
  });
});
