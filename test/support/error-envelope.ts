/**
 * The OpenAI-style error envelope the API refuses with, `{ error: { code, message, type, param } }`
 * as JSON, checked the same way by every suite that reads refusals.
 */
import { expect } from 'vitest';
import type { JsonResponse } from './test-server.js';

export interface ErrorBody {
  code: string;
  message: string;
  type: string;
  param: string | null;
}

/** Asserts the status and the envelope, and its code and param when given; hands back its `error` object. */
export function expectErrorBody(response: JsonResponse, status: number, code?: string, param?: string | null): ErrorBody {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type') ?? '').toContain('application/json');
  const error = response.body?.error;
  expect(error, response.text).toBeTypeOf('object');
  expect(error.code).toBeTypeOf('string');
  expect(error.message).toBeTypeOf('string');
  expect(error.type).toBeTypeOf('string');
  expect(error.param === null || typeof error.param === 'string').toBe(true);
  if (code !== undefined) expect(error.code).toBe(code);
  if (param !== undefined) expect(error.param).toBe(param);
  return error;
}
