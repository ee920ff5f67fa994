/**
 * Uploads one file into a knowledge base (POST /api/knowledge-bases/{id}/documents, multipart,
 * field `file`) with XMLHttpRequest, the one browser API that reports how many bytes of a request
 * body have been sent, so the page can show each file's upload progress. The path and the answer
 * are typed from the generated OpenAPI types, as the typed client's are; the session cookie goes
 * along by itself (same origin) and the browser's Origin header satisfies the CSRF check.
 */
import { ApiError, apiErrorFromBody } from './api-error';
import type { paths } from './generated/openapi';

type UploadOperation = paths['/api/knowledge-bases/{id}/documents']['post'];

/** What the server answers an upload with: the new document and its ingestion job. */
export type QueuedUpload = Required<Pick<UploadOperation['responses'][202]['content']['application/json'], 'document_id' | 'job_id'>>;

const UPLOAD_PATH_TEMPLATE = '/api/knowledge-bases/{id}/documents' satisfies keyof paths;

/** An upload the server refused, with the size limit when the file was too large. */
export class UploadRefused extends ApiError {
  readonly bytesMaximum: number | undefined;

  constructor(error: ApiError, bytesMaximum: number | undefined) {
    super({ status: error.status, code: error.code, message: error.message, param: error.param, problems: error.problems });
    this.bytesMaximum = bytesMaximum;
  }
}

export interface UploadOptions {
  knowledgeBaseId: number;
  file: File;
  /** Called as bytes go out, with the share sent so far (0 to 1). */
  onProgress: (fraction: number) => void;
  signal?: AbortSignal;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function bytesMaximumOf(body: unknown): number | undefined {
  const error = (body as { error?: { details?: { max_bytes?: unknown } } } | undefined)?.error;
  const maximum = error?.details?.max_bytes;
  return typeof maximum === 'number' ? maximum : undefined;
}

function isQueued(body: unknown): body is QueuedUpload {
  const queued = body as Partial<QueuedUpload> | undefined;
  return typeof queued?.document_id === 'number' && typeof queued.job_id === 'number';
}

export function uploadDocument(options: UploadOptions): Promise<QueuedUpload> {
  const { knowledgeBaseId, file, onProgress, signal } = options;
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', UPLOAD_PATH_TEMPLATE.replace('{id}', String(knowledgeBaseId)));
    request.setRequestHeader('accept', 'application/json');
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    request.addEventListener('load', () => {
      const body = parsed(request.responseText);
      if (request.status >= 200 && request.status < 300 && isQueued(body)) {
        onProgress(1);
        resolve(body);
        return;
      }
      reject(new UploadRefused(apiErrorFromBody(request.status, body), bytesMaximumOf(body)));
    });
    request.addEventListener('error', () =>
      reject(new ApiError({ status: 0, code: 'network_error', message: 'The server could not be reached.' })),
    );
    request.addEventListener('abort', () => reject(new DOMException('The upload was stopped.', 'AbortError')));
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    const form = new FormData();
    form.append('file', file, file.name);
    request.send(form);
  });
}
