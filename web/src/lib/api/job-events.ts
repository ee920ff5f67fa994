/**
 * Follows a knowledge base's ingestion jobs live (GET /api/knowledge-bases/{id}/jobs/events,
 * server-sent events) with the browser's EventSource, which sends the session cookie and
 * reconnects by itself after a dropped connection. When the stream cannot be held (the server
 * refused it, or the browser gave up), `onUnavailable` tells the caller to poll the job list
 * instead. The event type comes from the generated OpenAPI types.
 */
import type { paths } from './generated/openapi';

export type JobEvent = paths['/api/knowledge-bases/{id}/jobs/events']['get']['responses'][200]['content']['text/event-stream'];

const EVENTS_PATH_TEMPLATE = '/api/knowledge-bases/{id}/jobs/events' satisfies keyof paths;

export interface JobEventHandlers {
  onEvent: (event: JobEvent) => void;
  /** The stream is open (again): events from now on arrive; what happened meanwhile must be listed. */
  onOpen: () => void;
  /** The stream is closed for good: poll the job endpoints instead. */
  onUnavailable: () => void;
}

function isJobEvent(value: unknown): value is JobEvent {
  const event = value as Partial<JobEvent> | undefined;
  return typeof event?.job_id === 'number' && typeof event.event === 'string' && typeof event.document_id === 'number';
}

/** Opens the stream; the returned function closes it. */
export function followJobEvents(knowledgeBaseId: number, handlers: JobEventHandlers): () => void {
  if (typeof EventSource === 'undefined') {
    handlers.onUnavailable();
    return () => undefined;
  }
  const source = new EventSource(EVENTS_PATH_TEMPLATE.replace('{id}', String(knowledgeBaseId)));
  source.addEventListener('open', () => handlers.onOpen());
  source.addEventListener('message', (message: MessageEvent<string>) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message.data);
    } catch {
      return;
    }
    if (isJobEvent(parsed)) handlers.onEvent(parsed);
  });
  source.addEventListener('error', () => {
    // CONNECTING: the browser is reconnecting by itself. CLOSED: it gave up (an error status).
    if (source.readyState === EventSource.CLOSED) handlers.onUnavailable();
  });
  return () => source.close();
}
