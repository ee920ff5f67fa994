/**
 * What the entity graph costs (docs/graph-search.md): at ingestion, the small fast model's calls
 * and the time per chunk of a knowledge base with `graph.enabled`; at query time, graph_search's
 * walk (find the question's entities, walk depth GRAPH_SEARCH_DEPTH_MAX with fan-out
 * GRAPH_SEARCH_FANOUT_MAX, read the passages) at p50 and p95, for graphs of a few sizes. Documents
 * are generated course notes, one chunk each, naming three people of a pool as capitalised names;
 * the fake OpenAI server of the tests answers the extraction prompt at once with those names and
 * relations from the first to the others. The walk is timed through the store alone (the same
 * function the tool's port calls), so the figures are the graph's and not the chat's. Prints
 * figures; never passes or fails on them.
 *
 *   npm run bench -- bench/graph-search.bench.ts      (QUERIES=40)
 */
import { describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type RecordedRequest, type ScriptedReply } from '../test/fakes/fake-openai-server.js';
import { waitForJob } from '../test/support/knowledge-uploads.js';
import { loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { walkEntityGraph } from '../src/knowledge/entity-graph-search.js';
import { ascending, milliseconds, percentile, printTable, wholeNumberSetting } from './support/measure.js';

const QUERIES = wholeNumberSetting('QUERIES', 40, 1);
const GRAPH_SIZES = [50, 200, 600] as const;
const DOCUMENTS_PER_REQUEST = 100;

/** A capitalised name made of letters only, one per index: `Kab`, `Kac`, … */
function personName(index: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return `K${letters[Math.floor(index / 26) % 26]}${letters[index % 26]}`;
}

function noteOf(index: number, people: number): string {
  const [first, second, third] = [index % people, (index * 7 + 3) % people, (index * 13 + 5) % people].map(personName);
  return `Note ${index}: ${first} worked with ${second} and wrote to ${third} about the lab.`;
}

function extraction(recorded: RecordedRequest): ScriptedReply {
  const messages = (recorded.body?.messages ?? []) as Array<{ content: string }>;
  const names = [...new Set(messages[1]!.content.match(/\bK[a-z]{2}\b/g) ?? [])];
  return {
    text: JSON.stringify({
      entities: names.map((name) => ({ name, type: 'person' })),
      relations: names.slice(1).map((name) => ({ from: names[0], to: name, label: 'works with' })),
    }),
  };
}

describe('graph_search cost against the size of the graph', () => {
  it('prints extraction calls and time per chunk, and walk p50/p95, for a few graph sizes', async () => {
    const provider = await startFakeOpenAiServer();
    provider.setResponder(extraction);
    const server = await startTestServer('sqlite', {
      environment: { LOG_LEVEL: 'warn', INGESTION_POLL_MS: '20', OPENAI_BASE_URL: provider.baseUrl, OPENAI_API_KEY: 'sk-bench' },
    });
    try {
      const token = await loginAsAdmin(server);
      const organizationId = (await request(server, 'GET', '/api/me', { token })).body.organization_id as number;
      await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
        token,
        body: { small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' } },
      });
      const rows: string[][] = [];
      for (const size of GRAPH_SIZES) {
        const people = Math.max(10, Math.floor(size / 2));
        const created = await request(server, 'POST', '/api/knowledge-bases', {
          token,
          body: { name: `Lab ${size}`, graph: { enabled: true } },
        });
        expect(created.status, created.text).toBe(201);
        const knowledgeBase = created.body.id as number;
        provider.reset();
        provider.setResponder(extraction);
        const started = performance.now();
        for (let start = 0; start < size; start += DOCUMENTS_PER_REQUEST) {
          const documents = Array.from({ length: Math.min(DOCUMENTS_PER_REQUEST, size - start) }, (_, offset) => ({
            text: noteOf(start + offset, people),
            metadata: { filename: `note-${start + offset}.md` },
          }));
          const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, { token, body: { documents } });
          expect(queued.status, queued.text).toBe(202);
          for (const { job_id } of queued.body.documents) await waitForJob(server, token, knowledgeBase, job_id, 300_000);
        }
        const ingestion = performance.now() - started;
        const calls = provider.requests.filter((recorded) => recorded.path.endsWith('/chat/completions')).length;
        const entities = await server.store.db
          .selectFrom('kb_graph_entities')
          .where('knowledge_base_id', '=', knowledgeBase)
          .select((eb) => eb.fn.countAll().as('count'))
          .executeTakeFirstOrThrow();
        const relations = await server.store.db
          .selectFrom('kb_graph_relations')
          .where('knowledge_base_id', '=', knowledgeBase)
          .select((eb) => eb.fn.countAll().as('count'))
          .executeTakeFirstOrThrow();
        const times: number[] = [];
        for (let query = 0; query < QUERIES; query += 1) {
          const question = `Who did ${personName((query * 11) % people)} work with?`;
          const walkStarted = performance.now();
          const answer = await walkEntityGraph(server.store.db, [knowledgeBase], { question, depth: 2, fanOut: 8, passages: 12 });
          times.push(performance.now() - walkStarted);
          expect(answer.found.length).toBeGreaterThan(0);
        }
        const sorted = ascending(times);
        rows.push([
          String(size),
          String(entities.count),
          String(relations.count),
          String(calls),
          milliseconds(ingestion / size),
          milliseconds(percentile(sorted, 0.5)),
          milliseconds(percentile(sorted, 0.95)),
        ]);
      }
      printTable(
        `entity graph, sqlite, fake small fast model answering at once, walk depth 2 fan-out 8 passages 12, ${QUERIES} questions per size`,
        [
          { label: 'chunks', width: 7 },
          { label: 'entities', width: 9 },
          { label: 'relations', width: 10 },
          { label: 'extraction calls', width: 17 },
          { label: 'ingest ms/chunk', width: 16 },
          { label: 'walk p50 ms', width: 12 },
          { label: 'walk p95 ms', width: 12 },
        ],
        rows,
      );
    } finally {
      await server.close();
      await provider.close();
    }
  }, 900_000);
});
