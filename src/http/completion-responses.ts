/**
 * A started completion run sent to the client, in OpenAI's chat completion format: one
 * `chat.completion`, or the event stream of openai-wire.ts. `/v1/chat/completions`, LAMB's
 * completions and the chats API all answer through here, so they speak exactly one wire format.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CompletionRun } from '../completions/completion-service.js';
import { AppError } from '../errors/app-error.js';
import { errorBody, toAppError } from './error-rendering.js';
import { ChunkWriter, completionBody, gatherAnswer, newCompletionIdentity } from './openai-wire.js';

export interface RunResponseOptions {
  request: FastifyRequest;
  reply: FastifyReply;
  run: CompletionRun;
  stream: boolean;
  /** What the request said about status lines in the content; undefined follows the assistant's setting. */
  statusAsContent: boolean | undefined;
  /** The model id the answer names. */
  modelId: string;
  /** Aborts when the client hangs up, which ends the stream quietly, or when the server stops (see `serverStopping`). */
  clientGone: AbortSignal;
  /** Aborts when a draining server ends the streams still running; they end with `server_shutting_down`. */
  serverStopping: AbortSignal;
}

/** A signal that stops the run: the client went away before the reply was complete, or the server is ending its streams. */
export function clientGoneSignal(reply: FastifyReply, serverStopping: AbortSignal): AbortSignal {
  const stopped = new AbortController();
  if (serverStopping.aborted) {
    stopped.abort(serverStopping.reason);
    return stopped.signal;
  }
  // Linked by hand rather than with AbortSignal.any, whose weak references and finalizers cost a
  // few percent of a request's CPU; the listener on the long-lived server signal goes with the reply.
  const onServerStopping = (): void => stopped.abort(serverStopping.reason);
  serverStopping.addEventListener('abort', onServerStopping, { once: true });
  reply.raw.on('close', () => {
    serverStopping.removeEventListener('abort', onServerStopping);
    if (!reply.raw.writableFinished) stopped.abort();
  });
  return stopped.signal;
}

async function streamRun({ request, reply, run, statusAsContent, modelId, clientGone, serverStopping }: RunResponseOptions): Promise<void> {
  const iterator = run.events;
  // Waiting for the first event lets a failure before it become a real HTTP status.
  const first = await iterator.next();
  reply.hijack();
  // A hijacked reply skips Fastify's header sending: carry over what hooks set (security headers, CORS).
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': request.id,
    'x-content-type-options': 'nosniff',
    ...(run.traceId !== undefined && { 'x-trace-id': run.traceId }),
  });
  const writer = new ChunkWriter(reply.raw, newCompletionIdentity(modelId), { statusAsContent: statusAsContent ?? run.statusAsContent });
  try {
    for (let next = first; !next.done; next = await iterator.next()) {
      if (clientGone.aborted) break;
      writer.write(next.value);
    }
    if (serverStopping.aborted) writer.fail(errorBody(new AppError('server_shutting_down'), request.id));
    else if (!clientGone.aborted) writer.done();
  } catch (error) {
    if (serverStopping.aborted) writer.fail(errorBody(new AppError('server_shutting_down'), request.id));
    if (clientGone.aborted) return;
    const failure = toAppError(error) ?? new AppError('internal_error');
    if (failure.status >= 500 && !toAppError(error))
      request.log.error({ errorName: (error as Error | null | undefined)?.name }, 'stream failed');
    writer.fail(errorBody(failure, request.id));
  } finally {
    // Closes the run when the client left early, so it stops and still records what it must.
    await iterator.return(undefined);
  }
}

/** Sends the run as one chat.completion, or streamed; resolves once the reply is done. */
export async function sendRun(options: RunResponseOptions): Promise<FastifyReply | undefined> {
  const { reply, run, stream, modelId } = options;
  if (stream) {
    await streamRun(options);
    return undefined;
  }
  const gathered = await gatherAnswer(run.events);
  // A run the stopping server cut short is not an answer: the client asks again elsewhere.
  if (options.serverStopping.aborted) throw new AppError('server_shutting_down');
  if (run.traceId !== undefined) reply.header('x-trace-id', run.traceId);
  return reply.send({
    ...completionBody(newCompletionIdentity(modelId), gathered),
    ...(run.traceId !== undefined && { trace_id: run.traceId }),
  });
}
