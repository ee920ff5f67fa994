/**
 * The studio's "Try it" conversation: the saved assistant answers through the LAMB completion
 * endpoint (POST /lamb/v1/completions?assistant=<id>), streamed, with the whole conversation sent
 * each time. Nothing is kept as a chat, so a trial never appears in the teacher's chat list or
 * export; the server runs the assistant as it is stored, never the form's unsaved edits.
 */
import { apiClient, streamOf } from './client';

export interface TrialMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** The answer to the last of `messages`, streamed; `signal` aborts it (Stop, or leaving the page). */
export async function streamTrialAnswer(
  assistantId: number,
  messages: TrialMessage[],
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  return streamOf(
    apiClient.POST('/lamb/v1/completions', {
      params: { query: { assistant: assistantId } },
      // Tool steps arrive as status events, shown apart from the text, as on the chat page.
      body: { messages, stream: true, stream_options: { status_as_content: false } },
      headers: { accept: 'text/event-stream' },
      parseAs: 'stream',
      signal,
    }),
  );
}
