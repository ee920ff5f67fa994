/**
 * What one deep_analysis costs against the number of passages it reads (10, 20, 40, 80): model
 * calls, tokens and the whole request's time, through the real pipeline and tool loop over HTTP.
 * The knowledge base holds 100 passages cut from the shared dbpedia subset (each opened with a
 * course-like "Ecology note n:" line so every one matches the question); the fake OpenAI server
 * of the tests plays the small fast model and the assistant's model, answering at once, then
 * again with MODEL_DELAY_MS per call (a slow provider), which shows what parallel batches save.
 * Tokens are what the fake reports (its estimate, a quarter of the characters). Prints figures;
 * never passes or fails on them.
 *
 *   npm run bench -- bench/deep-analysis.bench.ts      (ROUNDS=3 MODEL_DELAY_MS=200)
 */
import { describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type RecordedRequest, type ScriptedReply } from '../test/fakes/fake-openai-server.js';
import { estimateTokens } from '../test/fakes/fake-http.js';
import { waitForJob } from '../test/support/knowledge-uploads.js';
import { loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { readJsonLines, type CorpusDocument } from './support/beir-data.js';
import { milliseconds, printTable, wholeNumberSetting } from './support/measure.js';

const ROUNDS = wholeNumberSetting('ROUNDS', 3, 1);
const MODEL_DELAY_MS = wholeNumberSetting('MODEL_DELAY_MS', 200, 0);
const PASSAGE_COUNTS = [10, 20, 40, 80] as const;
const CORPUS_PASSAGES = 100;
const QUESTION = 'What do the ecology notes say about places and people?';
const SUMMARY_SYSTEM = 'You summarise numbered passages';

interface Message {
  role: string;
  content: string;
}

function messagesOf(recorded: RecordedRequest): Message[] {
  return (recorded.body?.messages ?? []) as Message[];
}

interface Row {
  passages: number;
  delay: number;
  calls: number;
  summaryCalls: number;
  tokens: number;
  milliseconds: number;
}

describe('deep_analysis cost against passages', () => {
  it('prints model calls, tokens and time for 10, 20, 40 and 80 passages', async () => {
    const provider = await startFakeOpenAiServer();
    let delay = 0;
    let analysisTokens = 0;
    const respond = (recorded: RecordedRequest): ScriptedReply => {
      const messages = messagesOf(recorded);
      const system = messages[0]?.content ?? '';
      const prompt = estimateTokens(messages.map((message) => message.content).join('\n'));
      if (system.startsWith(SUMMARY_SYSTEM) || system.startsWith('Answer the question from these summaries')) {
        const text = system.startsWith(SUMMARY_SYSTEM) ? '- The notes name places [1] and people [2].' : 'Places [1] and people [2].';
        analysisTokens += prompt + estimateTokens(text);
        return { text, delayMs: delay };
      }
      if (!messages.some((message) => message.role === 'tool'))
        return { toolCalls: [{ id: `call_${Math.random()}`, name: 'deep_analysis', arguments: JSON.stringify({ question: QUESTION }) }] };
      return { text: 'The notes name places [1] and people [2].' };
    };
    provider.setResponder(respond);
    const server = await startTestServer('sqlite', {
      environment: {
        LOG_LEVEL: 'warn',
        INGESTION_POLL_MS: '20',
        OPENAI_BASE_URL: provider.baseUrl,
        OPENAI_API_KEY: 'sk-bench',
        CHAT_REQUESTS_PER_USER_MAX: '1000000',
      },
    });
    try {
      const token = await loginAsAdmin(server);
      const organizationId = (await request(server, 'GET', '/api/me', { token })).body.organization_id as number;
      await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
        token,
        body: { small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' } },
      });
      const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Ecology notes' } })).body
        .id as number;
      const corpus = readJsonLines<CorpusDocument>('corpus.jsonl').slice(0, CORPUS_PASSAGES);
      const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
        token,
        body: {
          documents: corpus.map((document, index) => ({
            text: `Ecology note ${index + 1}: places and people. ${document.text.slice(0, 700)}`,
            metadata: { filename: `note-${index + 1}.md` },
          })),
        },
      });
      expect(queued.status, queued.text).toBe(202);
      for (const { job_id } of queued.body.documents) await waitForJob(server, token, knowledgeBase, job_id, 120_000);

      const rows: Row[] = [];
      for (const modelDelay of [0, MODEL_DELAY_MS]) {
        delay = modelDelay;
        for (const passages of PASSAGE_COUNTS) {
          const created = await request(server, 'POST', '/api/assistants', {
            token,
            body: {
              name: `Analyst ${passages} ${modelDelay}`,
              system_prompt: 'You answer from the notes.',
              metadata: {
                assistant_type: 'multi_tool',
                connector: 'openai',
                llm: 'gpt-4o',
                tools: [{ type: 'deep_analysis', config: { collections: [String(knowledgeBase)], passages } }],
              },
            },
          });
          expect(created.status, created.text).toBe(201);
          let elapsed = 0;
          let calls = 0;
          let summaryCalls = 0;
          analysisTokens = 0;
          for (let round = 0; round < ROUNDS; round += 1) {
            provider.reset();
            provider.setResponder(respond);
            const started = performance.now();
            const answered = await request(server, 'POST', '/v1/chat/completions', {
              token,
              body: { model: `lamb_assistant.${created.body.id}`, messages: [{ role: 'user', content: QUESTION }] },
            });
            elapsed += performance.now() - started;
            expect(answered.status, answered.text).toBe(200);
            const chats = provider.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));
            calls += chats.length;
            summaryCalls += chats.filter((recorded) => messagesOf(recorded)[0]?.content.startsWith(SUMMARY_SYSTEM) === true).length;
          }
          rows.push({
            passages,
            delay: modelDelay,
            calls: calls / ROUNDS,
            summaryCalls: summaryCalls / ROUNDS,
            tokens: analysisTokens / ROUNDS,
            milliseconds: elapsed / ROUNDS,
          });
        }
      }
      printTable(
        `deep_analysis cost per request (sqlite, default bounds: 8 passages a batch, 4 at once; mean of ${ROUNDS})`,
        [
          { label: 'passages', width: 9 },
          { label: 'model delay ms', width: 15 },
          { label: 'model calls', width: 12 },
          { label: 'summaries', width: 10 },
          { label: 'analysis tokens', width: 16 },
          { label: 'request ms', width: 11 },
        ],
        rows.map((row) => [
          String(row.passages),
          String(row.delay),
          row.calls.toFixed(1),
          row.summaryCalls.toFixed(1),
          row.tokens.toFixed(0),
          milliseconds(row.milliseconds),
        ]),
      );
    } finally {
      await server.close();
      await provider.close();
    }
  });
});
