/**
 * Turns a provider's failure into an AppError with a real status (400, 429, 502, 504) and a
 * message of our own: providers' messages can quote credentials (an OpenAI 401 shows part of the
 * key), so they never reach a client or a log.
 */
import { AppError } from '../../errors/app-error.js';

export interface UpstreamCall {
  /** False when no API key went with the request (an organization URL set without a key of its own). */
  keySent: boolean;
}

export function upstreamStatusError(status: number, call: UpstreamCall = { keySent: true }): AppError {
  if (status === 429) return new AppError('upstream_rate_limited');
  if ((status === 401 || status === 403) && !call.keySent) {
    return new AppError(
      'upstream_error',
      `The model provider requires an API key, and none is set for its URL (HTTP ${status}); an organization that sets its own base URL must set its own API key.`,
    );
  }
  if (status === 401 || status === 403)
    return new AppError('upstream_error', `The model provider refused Merino's credentials (HTTP ${status}).`);
  if (status === 404) return new AppError('upstream_rejected', 'The model provider does not know this model (HTTP 404).');
  if (status >= 400 && status < 500) return new AppError('upstream_rejected', `The model provider rejected the request (HTTP ${status}).`);
  return new AppError('upstream_error', `The model provider failed to answer (HTTP ${status}).`);
}

/** Which signal ended the call decides the story: the client left, or the provider was too slow. */
export function upstreamAbortError(clientSignal: AbortSignal, timeoutMilliseconds: number): Error {
  if (clientSignal.aborted)
    return clientSignal.reason instanceof Error ? clientSignal.reason : new DOMException('The client went away.', 'AbortError');
  return new AppError('upstream_timeout', `The model provider did not answer within ${timeoutMilliseconds} ms.`);
}

/**
 * A stream that stops without saying it is complete (OpenAI's `finish_reason`, Ollama's
 * `done: true`) is a cut answer, never a short one: passing it on as finished would tell the
 * learner a truncated answer is the whole of it.
 */
export function upstreamEndedEarlyError(): AppError {
  return new AppError('upstream_error', 'The model provider ended the answer early.');
}

/** The provider's answer passed UPSTREAM_RESPONSE_MAX_BYTES and was cut (outbound-post.ts's `oversizedAnswerIn` recognises it). */
export function oversizedAnswerError(): AppError {
  return new AppError('upstream_error', 'The model provider sent a larger answer than UPSTREAM_RESPONSE_MAX_BYTES allows.');
}

/**
 * An outside service's answer (Moodle, Open-Meteo, a knowledge-base server) passed the setting that
 * bounds it. The setting is named with its value, so an operator knows what to raise when a
 * service's answers are legitimately large.
 */
export function answerPastBoundError(sender: string, setting: string, bytesMaximum: number): AppError {
  return new AppError('upstream_error', `${sender} sent an answer larger than ${setting} (${bytesMaximum} bytes) allows.`);
}

export function unreachableProviderError(): AppError {
  return new AppError('upstream_error', 'The model provider could not be reached.');
}

/** The estimate bypass connectors report: about four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
