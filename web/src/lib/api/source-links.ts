/**
 * A signed source link of a "Sources" block (GET /api/source-links/{token}): the cited passage with
 * its neighbours. The token alone opens it for the person it names, so a reader who is not signed
 * in is not sent to the login page; when signed in, the server decides with their own access.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

export type SourceLinkPassage = JsonAnswer<'/api/source-links/{token}', 'get'>;

/** Six decimal fields and a hex signature, as the server signs them; anything else is not a link. */
const TOKEN_SHAPE = /^\d{1,10}\.\d{1,10}\.\d{1,10}\.\d{1,10}\.\d{1,10}\.\d{1,12}\.[0-9a-f]{64}$/;

export function isSourceLinkToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

export async function openSourceLink(token: string): Promise<SourceLinkPassage> {
  return answerOf(apiClient.GET('/api/source-links/{token}', { params: { path: { token } } }), { allowUnauthenticated: true });
}
