/**
 * Proves, over real HTTP on both dialects, that a generated corpus of hostile documents fails
 * cleanly (test/support/hostile-documents.ts): ZIP bombs in every Word part, honest or lying about
 * their sizes, parts that are each small but together too large, nested archives, XXE and
 * "billion laughs" XML, a PDF Flate bomb, and pathological whitespace in text, Markdown and HTML.
 * Each upload is accepted, its job ends as expected with a message naming the cause (no stack, no
 * internals), the server answers /healthz all the while, logs no internal error, and a plain
 * document queued after the corpus is still indexed. Limits are lowered through their settings so
 * the bombs stay small; the benchmark runs the same corpus at the default limits.
 *
 * A second server with small worker budgets proves the second line of defence, for what no scan
 * can see in advance: a Word document whose XML needs more heap than INGESTION_WORKER_HEAP_MB, and
 * a PDF bomb disguised as an image (pdf.js inflates it outside the heap) past INGESTION_WORKER_RSS_MB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchHealth } from './support/health-watch.js';
import { docx, hostileCorpus, pdfFlateBomb, type HostileDocument } from './support/hostile-documents.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const MEGABYTE = 1024 * 1024;
const LOWERED_LIMITS = {
  INGESTION_POLL_MS: '20',
  INGESTION_ZIP_PART_MAX_BYTES: String(4 * MEGABYTE),
  INGESTION_ZIP_TOTAL_MAX_BYTES: String(8 * MEGABYTE),
  INGESTION_PDF_INFLATED_MAX_BYTES: String(8 * MEGABYTE),
};

/** How each refusal reason shows in the job's message: the creator reads the cause, not a code. */
const REASON_WORDING: Record<string, RegExp> = {
  part_too_large: /part "[^"]+" unpacks to more than 4,194,304 bytes/,
  archive_too_large: /unpack to more than 8,388,608 bytes together/,
  damaged: /damaged|do not match/,
  document_type_declaration: /document type declaration \(DTD\)/,
  too_much_compressed_content: /compressed content unpacks to more than 8,388,608 bytes/,
  out_of_memory: /needed more than \d+ MB of memory/,
  timeout: /took longer than/,
};

const PLAIN_TEXT = 'Oxbow lakes form when a meander of a river is cut off.';

let corpus: HostileDocument[] | undefined;
async function theCorpus(): Promise<HostileDocument[]> {
  corpus ??= await hostileCorpus({
    zipBombBytes: 16 * MEGABYTE,
    zipPartBytes: 3 * MEGABYTE,
    zipParts: 4,
    pdfBombBytes: 32 * MEGABYTE,
    whitespaceCharacters: 120_000,
  });
  return corpus;
}

function expectCleanMessage(message: string): void {
  expect(message).not.toMatch(/\n\s+at |Error:|ERR_|node_modules|\/work\//);
  expect(message.length).toBeLessThan(600);
}

async function createKnowledgeBase(server: TestServer, token: string, name: string): Promise<number> {
  const created = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name } });
  expect(created.status).toBe(201);
  return created.body.id as number;
}

/** Uploads each document (all must be accepted: the type is right, only the content is hostile) and waits for every job. */
async function ingestAll(
  server: TestServer,
  token: string,
  knowledgeBase: number,
  documents: ReadonlyArray<{ fileName: string; bytes: Uint8Array }>,
): Promise<any[]> {
  const jobIds: number[] = [];
  for (const document of documents) {
    const uploaded = await uploadDocument(server, token, knowledgeBase, document.fileName, document.bytes);
    expect(uploaded.status, `${document.fileName}: ${uploaded.text}`).toBe(202);
    jobIds.push(uploaded.body.job_id);
  }
  const jobs: any[] = [];
  for (const jobId of jobIds) jobs.push(await waitForJob(server, token, knowledgeBase, jobId, 90_000));
  return jobs;
}

function expectReason(job: any, reasons: readonly string[], label: string): void {
  expect(job.status, `${label}: ${JSON.stringify(job)}`).toBe('failed');
  expect(typeof job.error, label).toBe('string');
  expectCleanMessage(job.error);
  const matched = reasons.filter((reason) => REASON_WORDING[reason]!.test(job.error));
  expect(matched.length, `${label}: "${job.error}" names none of ${reasons.join(', ')}`).toBeGreaterThan(0);
}

describe.each(TEST_DIALECTS)('hostile documents fail cleanly on %s', (dialect) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: LOWERED_LIMITS });
    token = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('ends every hostile job as expected with a message naming the cause, answers /healthz throughout, and still indexes the next document', async () => {
    const documents = await theCorpus();
    const knowledgeBase = await createKnowledgeBase(server, token, 'Hostile corpus');
    const health = watchHealth(server, 20);
    const jobs = await ingestAll(server, token, knowledgeBase, [
      ...documents,
      { fileName: 'oxbow.txt', bytes: new TextEncoder().encode(PLAIN_TEXT) },
    ]);
    const figures = await health.stop();

    documents.forEach((document, index) => {
      const job = jobs[index];
      if (document.expected.status === 'completed') expect(job, document.label).toMatchObject({ status: 'completed', error: null });
      else expectReason(job, document.expected.reasons, document.label);
    });
    expect(jobs.at(-1)).toMatchObject({ status: 'completed', error: null });
    const hits = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token,
      body: { query_text: 'oxbow meander river' },
    });
    expect(hits.body.results[0].data).toContain('Oxbow lakes');

    const listed = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token });
    for (const document of listed.body.items) expect(['completed', 'failed']).toContain(document.status);

    expect(figures.failures, figures.firstFailure).toBe(0);
    expect(figures.checks).toBeGreaterThan(documents.length);
    // Refusals are the document's fault, not the server's: nothing is logged as an internal error.
    expect(server.logLines.filter((line) => /"level":50/.test(line))).toEqual([]);
  });
});

describe.each(TEST_DIALECTS)('the worker budgets stop what no scan can see, on %s', (dialect) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      environment: {
        INGESTION_POLL_MS: '20',
        INGESTION_WORKER_HEAP_MB: '48',
        INGESTION_WORKER_RSS_MB: '256',
        INGESTION_WORKER_TIMEOUT_MS: '60000',
      },
    });
    token = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('fails a document that needs more heap, and a PDF bomb disguised as an image, naming the budget; the server keeps answering', async () => {
    const knowledgeBase = await createKnowledgeBase(server, token, 'Budgets');
    const paragraphs = '<w:p><w:r><w:t>x</w:t></w:r></w:p>'.repeat(100_000);
    const heapHungry = await docx('', {
      'word/document.xml': `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs}</w:body></w:document>`,
    });
    const disguisedBomb = await pdfFlateBomb(400 * MEGABYTE, { disguisedAsImage: true });
    const health = watchHealth(server, 20);
    const [heapJob, bombJob, plainJob] = await ingestAll(server, token, knowledgeBase, [
      { fileName: 'paragraphs.docx', bytes: heapHungry },
      { fileName: 'disguised.pdf', bytes: disguisedBomb },
      { fileName: 'oxbow.txt', bytes: new TextEncoder().encode(PLAIN_TEXT) },
    ]);
    const figures = await health.stop();

    expectReason(heapJob, ['out_of_memory'], 'heap');
    expect(heapJob.error).toContain('48 MB');
    expectReason(bombJob, ['out_of_memory', 'timeout'], 'disguised PDF bomb');
    expect(plainJob).toMatchObject({ status: 'completed', error: null });
    expect(figures.failures, figures.firstFailure).toBe(0);
    expect((await request(server, 'GET', '/healthz')).status).toBe(200);
    // Operators see which budget stopped which job, in names and numbers, never the document's words.
    const stoppedLines = server.logLines.filter((line) => line.includes('document worker stopped'));
    expect(stoppedLines.some((line) => line.includes('heap cap of 48 MB'))).toBe(true);
    expect(stoppedLines).toHaveLength(2);
    expect(server.logLines.filter((line) => /Bomb|Oxbow|<w:t>/.test(line))).toEqual([]);
  });
});
