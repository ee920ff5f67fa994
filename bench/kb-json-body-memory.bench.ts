/**
 * Benchmark of what a large JSON body to `POST /api/knowledge-bases/{id}/documents` costs in
 * memory: issue 11 measured about 340 MB of resident memory per 49 MB body when the route read
 * such bodies whole. Sends JSON_BODY_REQUESTS bodies of JSON_BODY_MB megabytes (one text each)
 * to a real server on SQLite, one after the other, and prints each answer's status, the resident
 * memory after each, and the peak. Run it at the default KB_JSON_BODY_MAX_BYTES (10 MiB: the
 * bodies are refused with 413 before they are read) and with a limit above the body size to see
 * what reading them costs:
 *
 *   npm run bench -- bench/kb-json-body-memory.bench.ts
 *   KB_JSON_BODY_MAX_BYTES=104857600 KB_UPLOAD_MAX_BYTES=104857600 npm run bench -- bench/kb-json-body-memory.bench.ts
 *
 * It never passes or fails on a figure; it checks only that every request was answered.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startServerProcess } from '../test/support/server-process.js';
import { createTestDatabase } from '../test/support/test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request } from '../test/support/test-server.js';
import { printTable, wholeNumberSetting } from './support/measure.js';

const BODY_MEGABYTES = wholeNumberSetting('JSON_BODY_MB', 49, 1);
const REQUESTS = wholeNumberSetting('JSON_BODY_REQUESTS', 3, 1);
const megabytes = (bytes: number): string => `${(bytes / 1_048_576).toFixed(0)} MB`;

/** The server process's resident memory, from Linux's /proc (the server runs apart from this client, so only its own memory counts). */
function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

describe('memory of large JSON knowledge-base bodies', () => {
  it(`sends ${REQUESTS} bodies of ${BODY_MEGABYTES} MB`, async () => {
    const environment: Record<string, string> = { INGESTION_POLL_MS: '600000' };
    for (const variable of ['KB_JSON_BODY_MAX_BYTES', 'KB_UPLOAD_MAX_BYTES', 'KB_JSON_DOCUMENTS_MAX']) {
      if (process.env[variable] !== undefined) environment[variable] = process.env[variable]!;
    }
    const database = await createTestDatabase('sqlite');
    // The runner polls rarely: this measures reading and storing the body, not indexing it.
    const server = await startServerProcess(database, environment);
    const pid = server.child.pid!;
    try {
      const token = (await request(server, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body
        .token as string;
      const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Memory' } })).body.id;
      const text = 'Basalt forms when lava cools quickly. '
        .repeat(Math.ceil((BODY_MEGABYTES * 1_048_576) / 38))
        .slice(0, BODY_MEGABYTES * 1_048_576);
      const body = Buffer.from(JSON.stringify({ documents: [{ text }] }));
      const baseline = residentBytes(pid);
      let peak = baseline;
      const rows: string[][] = [];
      for (let index = 0; index < REQUESTS; index += 1) {
        const answer = await fetch(`${server.baseUrl}/api/knowledge-bases/${knowledgeBase}/documents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
        });
        await answer.arrayBuffer();
        expect([202, 413]).toContain(answer.status);
        const resident = residentBytes(pid);
        peak = Math.max(peak, resident);
        rows.push([String(index + 1), String(answer.status), megabytes(resident), `+${megabytes(resident - baseline)}`]);
      }
      printTable(
        `${REQUESTS} JSON bodies of ${megabytes(body.length)} to a server process; baseline RSS ${megabytes(baseline)}, peak after a request ${megabytes(peak)} (+${megabytes(peak - baseline)})`,
        [
          { label: 'request', width: 8 },
          { label: 'status', width: 7 },
          { label: 'RSS after', width: 10 },
          { label: 'growth', width: 9 },
        ],
        rows,
      );
    } finally {
      await server.kill();
      await database.drop();
    }
  });
});
