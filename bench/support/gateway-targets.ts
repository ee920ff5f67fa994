/**
 * The processes the gateway comparison measures (bench/gateway-comparison.ts): the mock provider,
 * Portkey's gateway installed into a scratch folder outside the repository, and Merino with a
 * classic and a multi-tool assistant, on a fresh SQLite folder or, with BENCH_DIALECT=postgres, on
 * a fresh database of a throw-away PostgreSQL cluster (the test suite's, started once). Every
 * process started here is stopped when the benchmark's process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgresCluster } from '../../test/support/postgres-cluster.js';
import { FILE_MARKER, KNOWLEDGE_MARKER, MOCK_MODEL, MULTI_TOOL_MARKER } from './mock-answer.js';

const GATEWAY_PACKAGES = ['@portkey-ai/gateway@1.15.2', 'hono@4.9.7', '@hono/node-server@1.13.5', '@hono/node-ws@1.2.0'];
const GATEWAY_FOLDER = path.join(os.tmpdir(), 'merino-bench-gateway');
export const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PROVIDER_KEY = 'sk-bench-provider-key-0123456789';
const ADMIN_EMAIL = 'bench-admin@merino.test';
const ADMIN_PASSWORD = 'bench-admin-password-0123';
const FILE_CHARACTERS = 20_000;
const KNOWLEDGE_PASSAGES = 200;

export type TargetName = 'direct' | 'portkey' | 'classic' | 'multi';

/** Where each Merino keeps its data: BENCH_DIALECT=postgres, or SQLite by default. */
const DIALECT: 'sqlite' | 'postgres' = process.env.BENCH_DIALECT === 'postgres' ? 'postgres' : 'sqlite';

export interface Target {
  name: TargetName;
  url: string;
  headers: Record<string, string>;
  model: string;
  /** The server process whose CPU and memory are read; undefined for the mock itself. */
  pid: number | undefined;
  /** The database server's processes now serving it (PostgreSQL), whose CPU is the server's too. */
  storeProcessIds?: () => Promise<number[]>;
}

// ---------------------------------------------------------------------------------------------
// Processes

const children: ChildProcess[] = [];

export function stopChildren(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
process.on('exit', stopChildren);

/** Each Merino's throwaway data folder, removed when the benchmark's process ends. */
const dataFolders: string[] = [];
process.on('exit', () => {
  for (const folder of dataFolders) fs.rmSync(folder, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function start(command: string, args: string[], options: { cwd: string; environment?: Record<string, string> }): ChildProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stderr.on('data', (data: Buffer) => process.stderr.write(`[${path.basename(args.at(-1) ?? command)}] ${data.toString()}`));
  return child;
}

/** Waits until `url` answers; fails at once if `child`, which should serve it, has exited. */
async function waitForHttp(url: string, seconds: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (child !== undefined && child.exitCode !== null) throw new Error(`${url}: its server exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${seconds} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function installedVersion(name: string): string | undefined {
  try {
    const file = path.join(GATEWAY_FOLDER, 'node_modules', name, 'package.json');
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

export async function ensureGateway(): Promise<string> {
  const wanted = GATEWAY_PACKAGES.map((spec) => {
    const at = spec.lastIndexOf('@');
    return { name: spec.slice(0, at), version: spec.slice(at + 1) };
  });
  if (wanted.some((entry) => installedVersion(entry.name) !== entry.version)) {
    console.log(`Installing ${GATEWAY_PACKAGES.join(' ')} into ${GATEWAY_FOLDER} …`);
    fs.mkdirSync(GATEWAY_FOLDER, { recursive: true });
    fs.writeFileSync(path.join(GATEWAY_FOLDER, 'package.json'), '{"name":"merino-bench-gateway","private":true}\n');
    const installer = spawn('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...GATEWAY_PACKAGES], {
      cwd: GATEWAY_FOLDER,
      stdio: 'inherit',
    });
    const code = await new Promise<number | null>((resolve) => installer.on('exit', resolve));
    if (code !== 0) throw new Error(`npm install of the gateway failed with exit code ${code}`);
  }
  return path.join(GATEWAY_FOLDER, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
}

export async function startMock(): Promise<{ url: string; pid: number }> {
  const child = start(process.execPath, ['--import', 'tsx', path.join(REPOSITORY, 'bench', 'support', 'mock-openai-server.ts')], {
    cwd: REPOSITORY,
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (data: Buffer) => {
      text += data.toString();
      const line = text.split('\n')[0];
      if (text.includes('\n') && line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.on('exit', (code) => reject(new Error(`the mock ended with code ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? 0 };
}

export async function startPortkey(script: string, mockUrl: string): Promise<Target> {
  const port = await freePort();
  const child = start(process.execPath, [script, `--port=${port}`, '--headless'], {
    cwd: GATEWAY_FOLDER,
    environment: { NODE_ENV: 'production', TRUSTED_CUSTOM_HOSTS: '127.0.0.1,localhost' },
  });
  child.stdout?.resume();
  await waitForHttp(`http://127.0.0.1:${port}/`, 60, child);
  return {
    name: 'portkey',
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: {
      authorization: `Bearer ${PROVIDER_KEY}`,
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${mockUrl}/v1`,
    },
    model: MOCK_MODEL,
    pid: child.pid,
  };
}

// ---------------------------------------------------------------------------------------------
// Stores

interface PostgresStores {
  adminUrl: string;
  admin: pg.Client;
  created: number;
}

let postgresStores: Promise<PostgresStores> | undefined;

async function startPostgresStores(): Promise<PostgresStores> {
  // The cluster stops itself when this process exits.
  const { adminUrl } = await startPostgresCluster();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  return { adminUrl, admin, created: 0 };
}

interface BenchStore {
  environment: Record<string, string>;
  storeProcessIds?: () => Promise<number[]>;
}

/** A fresh store for one Merino: its data folder, and on PostgreSQL a database of its own. */
async function freshStore(dataDirectory: string): Promise<BenchStore> {
  if (DIALECT === 'sqlite') return { environment: { DATA_DIR: dataDirectory } };
  postgresStores ??= startPostgresStores();
  const stores = await postgresStores;
  stores.created += 1;
  const database = `merino_bench_${stores.created}`;
  await stores.admin.query(`create database ${database}`);
  const url = new URL(stores.adminUrl);
  url.pathname = `/${database}`;
  return {
    // Processes sharing a database share the key its secrets are encrypted with.
    environment: { DATA_DIR: dataDirectory, DATABASE_URL: url.toString(), MERINO_SECRET_KEY: 'merino-bench-secret-key-0123456789' },
    storeProcessIds: async () =>
      (await stores.admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database])).rows.map(
        (row) => row.pid,
      ),
  };
}

// ---------------------------------------------------------------------------------------------
// Merino and its assistants

export async function api<Body = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  route: string,
  options: { token?: string; body?: unknown; form?: FormData } = {},
): Promise<Body> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
    },
    body: options.form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
  return (text === '' ? {} : JSON.parse(text)) as Body;
}

export function courseFile(): string {
  const parts = [`# Course notes\n\nReference ${FILE_MARKER}.\n`];
  for (let section = 1; parts.join('').length < FILE_CHARACTERS; section += 1)
    parts.push(
      `\n## Section ${section}\n\nLesson ${section} explains how structure and function depend on each other. ` +
        `Students compare examples, write short answers and check them against the worked solutions.\n`,
    );
  return parts.join('').slice(0, FILE_CHARACTERS);
}

/** About 560 characters a passage: one passage a chunk at a chunk size of 700, two passages being too long for one. */
export function knowledgePassages(): string[] {
  const passages: string[] = [];
  for (let index = 0; index < KNOWLEDGE_PASSAGES; index += 1)
    passages.push(
      `${KNOWLEDGE_MARKER}${index}: cells turn glucose into energy in passage ${index}. ` +
        `Respiration releases the energy stored in glucose, and the cells keep it as ATP for their work. ` +
        `Topic ${index % 17} of the unit adds examples from plants, animals and fungi, with questions to try. `.padEnd(360, '.') +
        ` ${KNOWLEDGE_MARKER}${index}.`,
    );
  return passages;
}

/** The title of the knowledge base's one document, which every chunk's title field holds. */
export const KNOWLEDGE_TITLE = 'Energy in cells';

async function waitForJob(baseUrl: string, token: string, knowledgeBase: number, job: number): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const body = await api<{ status: string; error?: string }>(baseUrl, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs/${job}`, {
      token,
    });
    if (body.status === 'completed') return;
    if (body.status === 'failed' || body.status === 'cancelled') throw new Error(`ingestion ${body.status}: ${body.error ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('ingestion did not end within 60 s');
}

export async function startMerino(
  mockUrl: string,
  options: {
    cpuProfileFolder?: string | undefined;
    /** A checkout whose built `dist/` to run instead of this one's (bench/gateway-build-comparison.ts). */
    repository?: string | undefined;
    /** Node's own arguments besides those, such as a module to preload (bench/chat-request-phases.ts). */
    nodeArguments?: readonly string[];
    /** Environment for the server besides the benchmark's own. */
    environment?: Readonly<Record<string, string>>;
  } = {},
): Promise<{ classic: Target; multi: Target; pid: number }> {
  const port = await freePort();
  const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'merino-bench-data-'));
  dataFolders.push(dataDirectory);
  const store = await freshStore(dataDirectory);
  const nodeArguments = [
    ...(options.cpuProfileFolder === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options.cpuProfileFolder)}`]),
    ...(options.nodeArguments ?? []),
  ];
  const repository = options.repository ?? REPOSITORY;
  const child = start(process.execPath, [...nodeArguments, path.join(repository, 'dist', 'main.js')], {
    cwd: repository,
    environment: {
      PORT: String(port),
      ...store.environment,
      MERINO_ADMIN_EMAIL: ADMIN_EMAIL,
      MERINO_ADMIN_PASSWORD: ADMIN_PASSWORD,
      OPENAI_BASE_URL: `${mockUrl}/v1`,
      OPENAI_API_KEY: PROVIDER_KEY,
      LOG_LEVEL: 'warn',
      // The benchmark measures the pipeline, not the per-user chat rate limit, which would refuse most of its load.
      CHAT_REQUESTS_PER_USER_MAX: '1000000',
      CHAT_REQUESTS_PER_API_KEY_MAX: '1000000',
      ...options.environment,
    },
  });
  child.stdout?.resume();
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/api/health`, 60, child);
  const token = (
    await api<{ token: string }>(baseUrl, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
  ).token;
  const key = (await api<{ key: string }>(baseUrl, 'POST', '/api/api-keys', { token, body: { name: 'gateway comparison' } })).key;

  const form = new FormData();
  form.append('file', new Blob([courseFile()], { type: 'text/markdown' }), 'course-notes.md');
  const filePath = (await api<{ file_path: string }>(baseUrl, 'POST', '/api/files', { token, form })).file_path;
  const knowledgeBase = (
    await api<{ id: number }>(baseUrl, 'POST', '/api/knowledge-bases', {
      token,
      body: { name: 'Cell biology', chunk_size: 700, chunk_overlap: 0 },
    })
  ).id;
  const queued = await api<{ documents: { job_id: number }[] }>(baseUrl, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
    token,
    body: { documents: [{ text: knowledgePassages().join('\n\n'), metadata: { title: KNOWLEDGE_TITLE } }] },
  });
  for (const document of queued.documents) await waitForJob(baseUrl, token, knowledgeBase, document.job_id);
  const chunks = (await api<{ chunk_count?: number }>(baseUrl, 'GET', `/api/knowledge-bases/${knowledgeBase}`, { token })).chunk_count;

  const classic = await api<{ id: number }>(baseUrl, 'POST', '/api/assistants', {
    token,
    body: {
      name: 'Classic tutor',
      system_prompt: 'You are a patient biology tutor.',
      prompt_template: '{user_input}',
      metadata: { connector: 'openai', llm: MOCK_MODEL, rag_processor: 'no_rag' },
    },
  });
  const multi = await api<{ id: number }>(baseUrl, 'POST', '/api/assistants', {
    token,
    body: {
      name: 'Multi-tool tutor',
      system_prompt: `You are a patient biology tutor (${MULTI_TOOL_MARKER}). Answer from the notes and passages.`,
      prompt_template: 'Course notes:\n{file}\n\nPassages:\n{context}\n\nQuestion: {user_input}',
      metadata: {
        assistant_type: 'multi_tool',
        connector: 'openai',
        llm: MOCK_MODEL,
        verbose: true,
        tools: [
          { type: 'single_file_rag', enabled: true, config: { file_path: filePath } },
          { type: 'simple_rag', enabled: true, config: { collections: [String(knowledgeBase)] } },
        ],
      },
    },
  });
  console.log(`Merino on ${DIALECT}: knowledge base of ${chunks ?? '?'} chunks, file of ${FILE_CHARACTERS} characters.`);
  const headers = { authorization: `Bearer ${key}` };
  const url = `${baseUrl}/v1/chat/completions`;
  const measured = { url, headers, pid: child.pid, ...(store.storeProcessIds && { storeProcessIds: store.storeProcessIds }) };
  return {
    classic: { name: 'classic', model: `lamb_assistant.${classic.id}`, ...measured },
    multi: { name: 'multi', model: `lamb_assistant.${multi.id}`, ...measured },
    pid: child.pid ?? 0,
  };
}
