/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, its command line,
 * as a child process) against a real Merino over loopback, and proves that every scenario that
 * applies to Merino passes. The suite cannot send a header, so a loopback proxy adds the API key
 * (test/support/bearer-proxy.ts); it passes Host and Origin through, which the DNS-rebinding
 * scenario needs. Scenarios that call fixture tools and prompts by fixed names (`test_simple_text`,
 * `test_simple_prompt`, …), resources, sampling and elicitation do not apply: Merino's tools are
 * its assistants. docs/mcp.md lists each scenario and why.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { startBearerProxy, type BearerProxy } from './support/bearer-proxy.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

/** The suite's command line, run with this Node rather than through npx (which costs seconds a scenario). */
const CONFORMANCE_COMMAND = fileURLToPath(import.meta.resolve('@modelcontextprotocol/conformance/dist/index.js'));

/** Scenarios that apply to Merino; each must end with no failed check. */
const PASSING_SCENARIOS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'completion-complete',
  'tools-list',
  'prompts-list',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

interface ScenarioOutcome {
  exitCode: number | null;
  checks: Check[];
  output: string;
}

async function runScenario(url: string, scenario: string): Promise<ScenarioOutcome> {
  const outputDirectory = await mkdtemp(path.join(tmpdir(), 'merino-mcp-conformance-'));
  try {
    const child = spawn(process.execPath, [CONFORMANCE_COMMAND, 'server', '--url', url, '--scenario', scenario, '-o', outputDirectory]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const files = await readdir(outputDirectory, { recursive: true });
    const checksFile = files.find((file) => file.endsWith('checks.json'));
    const checks = checksFile === undefined ? [] : (JSON.parse(await readFile(path.join(outputDirectory, checksFile), 'utf8')) as Check[]);
    return { exitCode, checks, output };
  } finally {
    await rm(outputDirectory, { recursive: true, force: true });
  }
}

describe.each(TEST_DIALECTS)('the MCP conformance suite against Merino on %s', (dialect) => {
  let fakeOpenAi: FakeOpenAiServer;
  let server: TestServer;
  let proxy: BearerProxy;

  beforeAll(async () => {
    fakeOpenAi = await startFakeOpenAiServer();
    server = await startTestServer(dialect, { environment: { OPENAI_BASE_URL: fakeOpenAi.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    const adminToken = await loginAsAdmin(server);
    const creator = await createUser(server, adminToken, { email: 'conformance@merino.test', role: 'creator' });
    const key = (await request(server, 'POST', '/api/api-keys', { token: creator.token, body: { name: 'conformance' } })).body
      .key as string;
    const metadata = { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] };
    const created = await request(server, 'POST', '/api/assistants', {
      token: creator.token,
      body: { name: 'Biology tutor', description: 'Answers questions on cell biology.', system_prompt: 'You teach biology.', metadata },
    });
    expect(created.status).toBe(201);
    proxy = await startBearerProxy(server.baseUrl, key);
  });

  afterAll(async () => {
    await possiblyUnset(proxy)?.close();
    await possiblyUnset(server)?.close();
    await possiblyUnset(fakeOpenAi)?.close();
  });

  it.each(PASSING_SCENARIOS)('passes %s', async (scenario) => {
    const outcome = await runScenario(`${proxy.baseUrl}/mcp`, scenario);
    const failed = outcome.checks.filter((check) => check.status === 'FAILURE');
    expect(failed, outcome.output).toEqual([]);
    expect(outcome.checks.length, outcome.output).toBeGreaterThan(0);
    expect(outcome.exitCode, outcome.output).toBe(0);
  });

  it('gets a readable JSON-RPC error, not a crash, for the fixture tool the suite calls by name', async () => {
    const outcome = await runScenario(`${proxy.baseUrl}/mcp`, 'tools-call-simple-text');
    expect(outcome.checks.map((check) => [check.id, check.status])).toEqual([['tools-call-simple-text', 'FAILURE']]);
    expect(outcome.checks[0]?.errorMessage).toMatch(/No tool named "test_simple_text" is available to you/);
  });
});
