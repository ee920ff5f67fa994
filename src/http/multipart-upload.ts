/**
 * Reading one uploaded file from a multipart/form-data request (field `file`): the upload streams
 * from the request to its consumer and is never held in memory whole. Everything @fastify/multipart
 * or busboy can throw is turned into our error JSON here, so a malformed, oversized or truncated
 * upload is a 4xx, never a 500. The files and knowledge-document routes both read uploads so.
 */
import type { FastifyMultipartBaseOptions, MultipartFile } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { Readable } from 'node:stream';
import { AppError, isAppError } from '../errors/app-error.js';
import { fileTooLarge } from '../files/file-storage.js';
import { validatorCompiler } from './validation.js';

/** Room for the multipart envelope around the file: boundaries, part headers and a few small fields. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
export const FILE_FIELD = 'file';
export const SEND_AS_MULTIPART = `Send the file as multipart/form-data, in the field "${FILE_FIELD}" with a file name.`;

/** The OpenAPI shape of an upload: one file in the field `file`, described for Swagger UI's file picker. */
export function uploadBodySchema(description: string) {
  return {
    type: 'object',
    properties: { [FILE_FIELD]: { type: 'string', format: 'binary', description } },
    required: [FILE_FIELD],
  } as const;
}

/**
 * The upload's body schema exists for the OpenAPI document only: a multipart body is read by the
 * handler as a stream, so there is no parsed body to validate. Other parts validate as usual.
 */
export const documentOnlyBodyValidator: FastifySchemaCompiler<object> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);

/** The options @fastify/multipart is registered with: one file per request, a few small fields at most. */
export function multipartOptions(bytesMaximum: number): FastifyMultipartBaseOptions {
  return {
    // One byte over the limit is let through, so the service sees that the file is too large and says so.
    limits: { fileSize: bytesMaximum + 1, files: 1, fields: 16, fieldSize: 64 * 1024, parts: 32, headerPairs: 64 },
  };
}

/** Our error for whatever reading the multipart body threw. */
function multipartFailure(error: unknown): AppError {
  if (isAppError(error)) return error;
  switch ((error as { code?: unknown } | null)?.code) {
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError('unsupported_media_type', SEND_AS_MULTIPART);
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new AppError('invalid_body', `The multipart body has too many parts. ${SEND_AS_MULTIPART}`, { param: FILE_FIELD });
    default:
      // Busboy's own errors (no boundary, a part cut short, a malformed header) and a client hanging up mid-upload.
      return new AppError('invalid_body', `The multipart body could not be read. ${SEND_AS_MULTIPART}`, { param: FILE_FIELD });
  }
}

/**
 * Refuses a request that is not multipart (415), or that declares a length the limit cannot
 * allow (413) before a byte of it is read. As Fastify does for its own body limit, the
 * connection is then closed rather than kept for a client that would send the body anyway.
 */
function requireMultipartUpload(request: FastifyRequest, reply: FastifyReply, bytesMaximum: number): void {
  if (!request.isMultipart()) throw new AppError('unsupported_media_type', SEND_AS_MULTIPART);
  const declaredLength = Number(request.headers['content-length']);
  if (Number.isFinite(declaredLength) && declaredLength > bytesMaximum + MULTIPART_OVERHEAD_BYTES) {
    reply.header('connection', 'close');
    throw fileTooLarge(bytesMaximum);
  }
}

/** The uploaded file part, or 400 when the request holds none in the field `file`. */
async function filePart(request: FastifyRequest): Promise<MultipartFile> {
  let part: MultipartFile | undefined;
  try {
    part = await request.file();
  } catch (error) {
    throw multipartFailure(error);
  }
  if (part === undefined) throw new AppError('invalid_body', `The request holds no file. ${SEND_AS_MULTIPART}`, { param: FILE_FIELD });
  if (part.fieldname !== FILE_FIELD) {
    discardUnread(part.file);
    throw new AppError('invalid_body', `The file is not in the field "${FILE_FIELD}". ${SEND_AS_MULTIPART}`, { param: FILE_FIELD });
  }
  return part;
}

/**
 * The file's bytes, with stream errors turned into our errors. The stream is not destroyed when
 * the service stops reading early (a refused file), so the rest can be drained instead.
 */
async function* uploadedBytes(file: Readable): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of file.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
  } catch (error) {
    throw multipartFailure(error);
  }
}

/**
 * Reads and drops what is left of a refused upload, so the client gets its answer on a healthy
 * connection instead of a reset while it is still sending. Busboy drops bytes past the size
 * limit cheaply, and the declared length was checked before reading began.
 */
function discardUnread(file: Readable): void {
  if (!file.readableEnded && !file.destroyed) file.resume();
}

export interface UploadedFile {
  fileName: string;
  contentType: string;
  stream: AsyncGenerator<Uint8Array>;
}

/**
 * Reads the one file of a multipart upload (at most `maxBytes`) and hands it to `use`; whatever
 * `use` leaves unread (a refused file) is drained afterwards, so the client gets its answer.
 */
export async function withUploadedFile<Result>(
  request: FastifyRequest,
  reply: FastifyReply,
  bytesMaximum: number,
  use: (file: UploadedFile) => Promise<Result>,
): Promise<Result> {
  requireMultipartUpload(request, reply, bytesMaximum);
  const part = await filePart(request);
  try {
    return await use({ fileName: part.filename, contentType: part.mimetype, stream: uploadedBytes(part.file) });
  } finally {
    discardUnread(part.file);
  }
}
