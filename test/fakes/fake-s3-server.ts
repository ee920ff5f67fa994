// An S3-compatible object store on loopback for the s3 blob driver's tests: speaks the real S3
// REST/XML wire (path-style) for the operations the driver uses — PutObject, GetObject with
// Range, HeadObject, DeleteObject, CopyObject, ListObjectsV2, the multipart upload calls and
// ListMultipartUploads — so the official AWS SDK talks to it unchanged. Objects live in memory.
// Signatures are not checked (requests must still carry one); what counts here is the wire.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface StoredObject {
  bytes: Buffer;
  modifiedAt: Date;
}

interface OpenUpload {
  key: string;
  parts: Map<number, Buffer>;
  initiatedAt: Date;
}

export interface FakeS3Server {
  /** `http://127.0.0.1:<port>`: the endpoint to put in STORAGE_URL. */
  endpoint: string;
  bucket: string;
  objects: Map<string, StoredObject>;
  /** How many multipart uploads were completed, and how many GETs asked for a range. */
  counts: { multipartCompleted: number; rangeReads: number; partsUploaded: number };
  /** Replaces an object's bytes behind the driver's back, as a failing disk or a meddler would. */
  corrupt(key: string, bytes: Buffer): void;
  close(): Promise<void>;
}

const BODY_BYTES_MAXIMUM = 64 * 1024 * 1024;

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function etagOf(bytes: Buffer): string {
  return `"${createHash('md5').update(bytes).digest('hex')}"`;
}

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > BODY_BYTES_MAXIMUM) throw new Error('body too large');
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

function sendXml(response: http.ServerResponse, status: number, xml: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
  response.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function sendError(response: http.ServerResponse, status: number, code: string, message: string, head = false): void {
  if (head) {
    response.writeHead(status);
    response.end();
    return;
  }
  sendXml(response, status, `<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`);
}

/** `bytes=a-b`, `bytes=a-` → inclusive bounds within `size`; undefined when unsatisfiable. */
function parseRange(header: string, size: number): { start: number; end: number } | undefined {
  const match = /^bytes=(\d+)-(\d*)$/.exec(header);
  if (!match) return undefined;
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return undefined;
  return { start, end };
}

export async function startFakeS3Server(bucket = 'merino-test'): Promise<FakeS3Server> {
  const objects = new Map<string, StoredObject>();
  const uploads = new Map<string, OpenUpload>();
  const counts = { multipartCompleted: 0, rangeReads: 0, partsUploaded: 0 };

  function listObjects(response: http.ServerResponse, query: URLSearchParams): void {
    const prefix = query.get('prefix') ?? '';
    const maxKeys = Math.min(Number(query.get('max-keys') ?? 1000), 1000);
    const after = query.get('continuation-token') ?? query.get('start-after') ?? '';
    const keys = [...objects.keys()].filter((key) => key.startsWith(prefix) && key > after).sort();
    const page = keys.slice(0, maxKeys);
    const truncated = keys.length > maxKeys;
    const contents = page
      .map((key) => {
        const object = objects.get(key)!;
        return `<Contents><Key>${xmlEscape(key)}</Key><LastModified>${object.modifiedAt.toISOString()}</LastModified><ETag>${xmlEscape(etagOf(object.bytes))}</ETag><Size>${object.bytes.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    sendXml(
      response,
      200,
      `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${truncated ? `<NextContinuationToken>${xmlEscape(page.at(-1)!)}</NextContinuationToken>` : ''}</ListBucketResult>`,
    );
  }

  function listUploads(response: http.ServerResponse): void {
    const entries = [...uploads.entries()]
      .map(
        ([id, upload]) =>
          `<Upload><Key>${xmlEscape(upload.key)}</Key><UploadId>${id}</UploadId><Initiated>${upload.initiatedAt.toISOString()}</Initiated></Upload>`,
      )
      .join('');
    sendXml(
      response,
      200,
      `<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated>${entries}</ListMultipartUploadsResult>`,
    );
  }

  function getObject(request: http.IncomingMessage, response: http.ServerResponse, key: string, head: boolean): void {
    const object = objects.get(key);
    if (!object) {
      sendError(response, 404, 'NoSuchKey', 'The specified key does not exist.', head);
      return;
    }
    const headers: http.OutgoingHttpHeaders = {
      etag: etagOf(object.bytes),
      'last-modified': object.modifiedAt.toUTCString(),
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
    };
    const rangeHeader = request.headers.range;
    if (rangeHeader !== undefined && !head) {
      counts.rangeReads += 1;
      const range = parseRange(rangeHeader, object.bytes.length);
      if (!range) {
        sendError(response, 416, 'InvalidRange', 'The requested range is not satisfiable.');
        return;
      }
      const slice = object.bytes.subarray(range.start, range.end + 1);
      response.writeHead(206, {
        ...headers,
        'content-length': slice.length,
        'content-range': `bytes ${range.start}-${range.end}/${object.bytes.length}`,
      });
      response.end(slice);
      return;
    }
    response.writeHead(200, { ...headers, 'content-length': object.bytes.length });
    response.end(head ? undefined : object.bytes);
  }

  async function putObject(request: http.IncomingMessage, response: http.ServerResponse, key: string, query: URLSearchParams) {
    const body = await readBody(request);
    const uploadId = query.get('uploadId');
    if (uploadId !== null) {
      const upload = uploads.get(uploadId);
      if (!upload) {
        sendError(response, 404, 'NoSuchUpload', 'The specified upload does not exist.');
        return;
      }
      upload.parts.set(Number(query.get('partNumber')), body);
      counts.partsUploaded += 1;
      response.writeHead(200, { etag: etagOf(body), 'content-length': 0 });
      response.end();
      return;
    }
    const copySource = request.headers['x-amz-copy-source'];
    if (typeof copySource === 'string') {
      const sourceKey = decodeURIComponent(copySource).replace(/^\/?[^/]+\//, '');
      const source = objects.get(sourceKey);
      if (!source) {
        sendError(response, 404, 'NoSuchKey', 'The specified key does not exist.');
        return;
      }
      const copy = { bytes: Buffer.from(source.bytes), modifiedAt: new Date() };
      objects.set(key, copy);
      sendXml(
        response,
        200,
        `<CopyObjectResult><LastModified>${copy.modifiedAt.toISOString()}</LastModified><ETag>${xmlEscape(etagOf(copy.bytes))}</ETag></CopyObjectResult>`,
      );
      return;
    }
    objects.set(key, { bytes: body, modifiedAt: new Date() });
    response.writeHead(200, { etag: etagOf(body), 'content-length': 0 });
    response.end();
  }

  async function postObject(request: http.IncomingMessage, response: http.ServerResponse, key: string, query: URLSearchParams) {
    const body = (await readBody(request)).toString('utf8');
    if (query.has('uploads')) {
      const id = randomBytes(12).toString('hex');
      uploads.set(id, { key, parts: new Map(), initiatedAt: new Date() });
      sendXml(
        response,
        200,
        `<InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
      );
      return;
    }
    const uploadId = query.get('uploadId') ?? '';
    const upload = uploads.get(uploadId);
    if (!upload) {
      sendError(response, 404, 'NoSuchUpload', 'The specified upload does not exist.');
      return;
    }
    const numbers = [...body.matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((match) => Number(match[1]));
    const missing = numbers.find((number) => !upload.parts.has(number));
    if (numbers.length === 0 || missing !== undefined) {
      sendError(response, 400, 'InvalidPart', 'A listed part was not uploaded.');
      return;
    }
    const bytes = Buffer.concat(numbers.map((number) => upload.parts.get(number)!));
    objects.set(key, { bytes, modifiedAt: new Date() });
    uploads.delete(uploadId);
    counts.multipartCompleted += 1;
    sendXml(
      response,
      200,
      `<CompleteMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket><Key>${xmlEscape(key)}</Key><ETag>"${numbers.length}-parts"</ETag></CompleteMultipartUploadResult>`,
    );
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    if (request.headers.authorization === undefined) {
      sendError(response, 403, 'AccessDenied', 'Anonymous requests are refused.');
      return;
    }
    const url = new URL(request.url ?? '/', 'http://fake');
    const [, bucketName, ...keyParts] = url.pathname.split('/');
    if (bucketName !== bucket) {
      sendError(response, 404, 'NoSuchBucket', 'The specified bucket does not exist.');
      return;
    }
    const key = keyParts.map((part) => decodeURIComponent(part)).join('/');
    const method = request.method ?? 'GET';
    if (key === '' && method === 'GET') {
      if (url.searchParams.has('uploads')) listUploads(response);
      else listObjects(response, url.searchParams);
      return;
    }
    if (method === 'GET' || method === 'HEAD') {
      getObject(request, response, key, method === 'HEAD');
      return;
    }
    if (method === 'PUT') return putObject(request, response, key, url.searchParams);
    if (method === 'POST') return postObject(request, response, key, url.searchParams);
    if (method === 'DELETE') {
      const uploadId = url.searchParams.get('uploadId');
      if (uploadId !== null) uploads.delete(uploadId);
      else objects.delete(key);
      response.writeHead(204);
      response.end();
      return;
    }
    sendError(response, 405, 'MethodNotAllowed', 'The method is not allowed.');
  }

  const server = http.createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) sendError(response, 500, 'InternalError', 'The fake failed.');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    objects,
    counts,
    corrupt(key, bytes) {
      objects.set(key, { bytes, modifiedAt: new Date() });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
