/**
 * What answering through the MCP server (`/mcp`, docs/mcp.md) costs over the OpenAI-compatible
 * endpoint, for the same person and the same assistant, on SQLite and on PostgreSQL: a
 * non-streamed `POST /v1/chat/completions`, next to an MCP `tools/call` from the official client
 * holding a session (the steady state of an IDE or agent), and a lone stateless `tools/call` POST
 * with no session (one HTTP request, as a script would send it). The model is the fake OpenAI
 * provider of the tests, answering at once, so the difference is Merino's own work: the MCP
 * server built per request, its permission look-up, the session check, the JSON-RPC framing.
 * The three kinds alternate round by round, so the machine's changing load falls on all alike.
 * Prints figures; never passes or fails on them.
 *
 *   npm run bench -- bench/mcp-tool-call.bench.ts      (REQUESTS=400 CONCURRENCY=8)
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAiServer } from '../test/fakes/fake-openai-server.js';
import { TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { ascending, percentile, printFigures, runPool, wholeNumberSetting, type Figures } from './support/measure.js';

const REQUESTS = wholeNumberSetting('REQUESTS', 400, 1);
const CONCURRENCY = wholeNumberSetting('CONCURRENCY', 8, 1);
const ROUNDS = 10;
const WARM_UP_CALLS = 30;
const QUESTION = 'How do cells divide?';

type Call = () => Promise<boolean>;

interface Round {
  latencies: number[];
  seconds: number;
  errors: number;
}

async function round(count: number, concurrency: number, call: Call): Promise<Round> {
  const latencies: number[] = [];
  let errors = 0;
  const seconds = await runPool(count, concurrency, async () => {
    const begin = performance.now();
    if (!(await call().catch(() => false))) errors += 1;
    latencies.push(performance.now() - begin);
  });
  return { latencies, seconds, errors };
}

function merged(name: string, parts: readonly Round[]): Figures {
  const latencies = ascending(parts.flatMap((part) => part.latencies));
  const seconds = parts.reduce((sum, part) => sum + part.seconds, 0);
  return {
    name,
    requests: latencies.length,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    p99: percentile(latencies, 0.99),
    errors: parts.reduce((sum, part) => sum + part.errors, 0),
  };
}

async function benchmark(dialect: Dialect): Promise<Figures[]> {
  const provider = await startFakeOpenAiServer();
  provider.setResponder(() => ({ text: 'Cells divide by mitosis.' }));
  const server = await startTestServer(dialect, {
    environment: {
      LOG_LEVEL: 'warn',
      OPENAI_BASE_URL: provider.baseUrl,
      OPENAI_API_KEY: 'sk-bench',
      CHAT_REQUESTS_PER_USER_MAX: '1000000',
      CHAT_REQUESTS_PER_API_KEY_MAX: '1000000',
    },
  });
  const client = new Client({ name: 'merino-bench', version: '1.0.0' });
  try {
    const adminToken = await loginAsAdmin(server);
    const creator = await createUser(server, adminToken, { email: `mcp-bench-${dialect}@merino.test`, role: 'creator' });
    const key = (await request(server, 'POST', '/api/api-keys', { token: creator.token, body: { name: 'bench' } })).body.key as string;
    const created = await request(server, 'POST', '/api/assistants', {
      token: creator.token,
      body: { name: 'Biology tutor', system_prompt: 'You teach biology.', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    expect(created.status, created.text).toBe(201);
    const assistantId = created.body.id as number;
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    const [tool] = (await client.listTools()).tools;
    const toolName = tool!.name;

    const direct: Call = async () =>
      (
        await request(server, 'POST', '/v1/chat/completions', {
          token: key,
          body: { model: `lamb_assistant.${assistantId}`, messages: [{ role: 'user', content: QUESTION }] },
        })
      ).status === 200;
    const throughSession: Call = async () => {
      const result = (await client.callTool({ name: toolName, arguments: { question: QUESTION } })) as CallToolResult;
      return result.isError !== true;
    };
    let nextId = 1;
    const stateless: Call = async () => {
      const response = await request(server, 'POST', '/mcp', {
        token: key,
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: toolName, arguments: { question: QUESTION } } },
      });
      return response.status === 200 && response.text.includes('Cells divide') && !response.text.includes('"isError":true');
    };
    const kinds = [
      ['POST /v1/chat/completions', direct],
      ['MCP tools/call, client with a session', throughSession],
      ['MCP tools/call, one stateless POST', stateless],
    ] as const;
    for (const [, call] of kinds) await round(WARM_UP_CALLS, 1, call);

    const rows: Figures[] = [];
    for (const [label, concurrency] of [['one at a time', 1] as const, [`${CONCURRENCY} at once`, CONCURRENCY] as const]) {
      const parts: Round[][] = kinds.map(() => []);
      for (let index = 0; index < ROUNDS; index += 1)
        for (const [position, [, call]] of kinds.entries())
          parts[position]!.push(await round(Math.ceil(REQUESTS / ROUNDS), concurrency, call));
      rows.push(...kinds.map(([name], position) => merged(`${name}, ${label}`, parts[position]!)));
    }
    return rows;
  } finally {
    await client.close();
    await server.close();
    await provider.close();
  }
}

describe('MCP tool-call overhead', () => {
  it.each(TEST_DIALECTS)('on %s', async (dialect) => {
    const rows = await benchmark(dialect);
    printFigures(
      `MCP tool call next to /v1/chat/completions, same assistant, ${dialect} (REQUESTS=${REQUESTS} per kind and load)`,
      rows,
      56,
    );
    for (const row of rows) expect(row.errors, row.name).toBe(0);
  });
});
