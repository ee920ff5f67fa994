/**
 * The knowledge-bases issue's "Done when" walk, over real HTTP on both dialects with the official
 * OpenAI client: a creator uploads a PDF, a Word document and a markdown file, watches each job
 * progress to completed, queries the knowledge base (pages and file names come back), and a
 * multi-tool assistant with simple_rag + rubric_rag + single_file_rag answers through
 * debug-bypass with {context}, {rubric} and {file} filled, returning the knowledge base's and the
 * file's sources (the rubric is an instruction, never a source) and the status lines of each tool.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocx, wordParagraph } from './support/docx-fixture.js';
import { uploadDocument } from './support/knowledge-uploads.js';
import { buildPdf } from './support/pdf-fixture.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const PDF_PAGE_TWO = 'Photosynthesis stores light energy as glucose in the chloroplast.';
const DOCX_TEXT = 'Osmosis moves water across a semipermeable membrane.';
const MARKDOWN = '# Enzymes\n\nEnzymes lower the activation energy of reactions.\n';
const FILE_TEXT = 'Assignment brief: explain how plants turn light into stored energy.';
const RUBRIC = {
  rubricId: 'lab-report-2026',
  title: 'Lab report',
  description: 'Biology lab reports',
  metadata: { subject: 'Biology' },
  criteria: [
    {
      name: 'Method',
      description: 'How the experiment was run',
      weight: 2,
      levels: [
        { score: 4, label: 'Clear', description: 'Every step can be repeated' },
        { score: 0, label: 'Missing', description: 'No method' },
      ],
    },
    {
      name: 'Analysis',
      description: 'What the data shows',
      weight: 1,
      levels: [
        { score: 4, label: 'Insightful', description: 'Links data to theory' },
        { score: 0, label: 'Missing', description: 'No analysis' },
      ],
    },
  ],
  scoringType: 'points',
  maxScore: 12,
};

interface JobObservation {
  status: string;
  percentage: number;
}

describe.each(TEST_DIALECTS)('a creator builds a knowledge assistant end to end on %s', (dialect) => {
  let server: TestServer;
  let creator: CreatedUser;
  let knowledgeBase: number;
  const documentIds: Record<string, number> = {};

  /** Polls the job, recording every status and percentage seen, until it ends. */
  async function watchJob(jobId: number): Promise<{ final: any; seen: JobObservation[] }> {
    const seen: JobObservation[] = [];
    for (let attempt = 0; attempt < 600; attempt += 1) {
      const job = (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}`, { token: creator.token })).body;
      seen.push({ status: job.status, percentage: job.progress.percentage });
      if (['completed', 'failed', 'cancelled'].includes(job.status)) return { final: job, seen };
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`job ${jobId} did not end`);
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { INGESTION_POLL_MS: '20' } });
    const adminToken = await loginAsAdmin(server);
    creator = await createUser(server, adminToken, { email: `builder-${dialect}@merino.test`, role: 'creator' });
    knowledgeBase = (
      await request(server, 'POST', '/api/knowledge-bases', {
        token: creator.token,
        body: { name: 'Plant biology', chunk_size: 300, chunk_overlap: 30 },
      })
    ).body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('uploads a PDF, a DOCX and a markdown file and watches each job progress to completed', async () => {
    const uploads: Array<[string, Uint8Array | string]> = [
      ['cells.pdf', buildPdf([{ lines: ['Cells are the units of life.'] }, { lines: [PDF_PAGE_TWO] }])],
      ['membranes.docx', await buildDocx(wordParagraph('Membranes', 'Heading1') + wordParagraph(DOCX_TEXT))],
      ['enzymes.md', MARKDOWN],
    ];
    for (const [fileName, content] of uploads) {
      const uploaded = await uploadDocument(server, creator.token, knowledgeBase, fileName, content);
      expect(uploaded.status, uploaded.text).toBe(202);
      documentIds[fileName] = uploaded.body.document_id;
      const { final, seen } = await watchJob(uploaded.body.job_id);
      expect(final.status, final.error).toBe('completed');
      expect(final.progress).toMatchObject({ percentage: 100, message: expect.stringMatching(/^Indexed \d+ chunks\.$/) });
      // Progress never goes backwards while a job runs.
      const percentages = seen.map((observation) => observation.percentage);
      expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    }
    const documents = (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token: creator.token })).body
      .items;
    expect(documents.map((document: any) => [document.file_name, document.status])).toEqual(
      expect.arrayContaining([
        ['cells.pdf', 'completed'],
        ['membranes.docx', 'completed'],
        ['enzymes.md', 'completed'],
      ]),
    );
  });

  it('queries the knowledge base: the PDF passage comes back with its page, the DOCX one with its file name', async () => {
    const photosynthesis = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token: creator.token,
      body: { query_text: 'photosynthesis glucose chloroplast', top_k: 1 },
    });
    expect(photosynthesis.body.results[0]).toMatchObject({
      data: expect.stringContaining(PDF_PAGE_TWO),
      metadata: { filename: 'cells.pdf', page: 2, document_id: documentIds['cells.pdf'] },
    });
    const osmosis = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token: creator.token,
      body: { query_text: 'osmosis membrane water', top_k: 1 },
    });
    expect(osmosis.body.results[0]).toMatchObject({ data: expect.stringContaining(DOCX_TEXT), metadata: { filename: 'membranes.docx' } });
  });

  it('answers through a multi-tool assistant with {context}, {rubric} and {file} filled, with the knowledge base and the file as sources and the rubric not', async () => {
    expect((await request(server, 'POST', '/api/rubrics', { token: creator.token, body: RUBRIC })).status).toBe(201);
    const form = new FormData();
    form.append('file', new Blob([FILE_TEXT]), 'brief.txt');
    const file = (await (
      await fetch(`${server.baseUrl}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${creator.token}` }, body: form })
    ).json()) as { file_path: string };
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: creator.token,
      body: {
        name: 'Plant biology tutor',
        prompt_template: 'Context:{context}\nRubric:{rubric}\nBrief:{file}\nQuestion:{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'debug-bypass',
          tools: [
            { type: 'simple_rag', config: { collections: [String(knowledgeBase)], top_k: 2 } },
            { type: 'rubric_rag', config: { rubric_id: RUBRIC.rubricId, format: 'markdown' } },
            { type: 'single_file_rag', config: { file_path: file.file_path } },
          ],
        },
      },
    });
    expect(assistant.status, assistant.text).toBe(201);
    const model = `lamb_assistant.${assistant.body.id}`;
    const client = new OpenAI({ apiKey: creator.token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });

    const answer = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'How does photosynthesis store energy?' }],
    });
    const prompt: string = JSON.parse(answer.choices[0]!.message.content!).messages.at(-1).content;
    expect(prompt).toContain(PDF_PAGE_TWO);
    expect(prompt).toContain('Lab report');
    expect(prompt).toContain('Method');
    expect(prompt).toContain(FILE_TEXT);
    const sources = (answer as unknown as { sources: Array<Record<string, unknown>> }).sources;
    expect(sources.map((source) => source.tool)).toEqual(expect.arrayContaining(['simple_rag', 'single_file_rag']));
    // The rubric fills {rubric} as an instruction to the model; it is what the answer is judged by, not where it came from.
    expect(sources.map((source) => source.tool)).not.toContain('rubric_rag');
    expect(sources.find((source) => source.tool === 'simple_rag')).toMatchObject({
      title: 'cells.pdf',
      page: 2,
      document_id: String(documentIds['cells.pdf']),
    });

    const stream = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${creator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'osmosis' }] }),
    });
    const streamed = await stream.text();
    expect(streamed).toContain(`"message":"querying knowledge base ${knowledgeBase}"`);
    expect(streamed).toContain(`"message":"generating rubric ${RUBRIC.rubricId}"`);
    expect(streamed).toContain(`"message":"reading file ${file.file_path}"`);
    expect(streamed).toContain('data: [DONE]');
  });
});
