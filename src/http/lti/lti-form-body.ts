/**
 * Form bodies as the LTI routes read them: every name/value pair, in order, since the LTI 1.1
 * signature covers every occurrence of every parameter. Only the LTI scopes register this parser;
 * every other route keeps refusing form bodies.
 */
import type { FastifyRequest } from 'fastify';

/** A form body as the LTI routes see it: every pair, in order. */
export type FormPairs = Record<string, unknown> & { pairs: Array<[string, string]> };

export function formPairsParser(body: string): FormPairs {
  return { pairs: [...new URLSearchParams(body)] };
}

export function formPairs(request: FastifyRequest): Array<[string, string]> {
  const body = request.body as FormPairs | undefined;
  return Array.isArray(body?.pairs) ? body.pairs : [];
}

export function formValue(request: FastifyRequest, name: string): string | undefined {
  return formPairs(request).find(([key]) => key === name)?.[1];
}
