/** Uploads documents to a knowledge base over real HTTP and waits for their ingestion jobs. */
import { expect } from 'vitest';
import { request, type JsonResponse } from './test-server.js';

export async function uploadDocument(
  server: { baseUrl: string },
  token: string,
  knowledgeBaseId: number,
  fileName: string,
  content: Uint8Array | string,
): Promise<JsonResponse> {
  const form = new FormData();
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  form.append('file', new Blob([bytes]), fileName);
  const response = await fetch(`${server.baseUrl}/api/knowledge-bases/${knowledgeBaseId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers, text };
}

/** Polls the job until it has ended (completed, failed or cancelled), for at most `timeoutMs`. */
export async function waitForJob(
  server: { baseUrl: string },
  token: string,
  knowledgeBaseId: number,
  jobId: number,
  timeoutMs = 15_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBaseId}/jobs/${jobId}`, { token });
    expect(response.status).toBe(200);
    if (['completed', 'failed', 'cancelled'].includes(response.body.status)) return response.body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${response.body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
