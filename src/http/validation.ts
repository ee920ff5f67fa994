/**
 * Request validation. Bodies are checked strictly (no type coercion, unknown fields rejected);
 * query strings and path parameters are coerced, since they only ever arrive as text. Failures
 * become one 400 that names the field, with every problem listed in details.
 */
import AjvModule, { type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError, type ErrorCode } from '../errors/app-error.js';

// ajv and ajv-formats are CommonJS; under NodeNext their default export sits one level down.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

function createAjv(coerceTypes: boolean) {
  const ajv = new Ajv({ allErrors: true, coerceTypes, removeAdditional: false, useDefaults: true, strict: false });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = createAjv(false);
const textAjv = createAjv(true);

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema);
};

function jsonPointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`), '');
}

function joinPath(base: string, child: string): string {
  if (base === '') return child;
  return `${base}.${child}`;
}

export interface FieldProblem {
  path: string;
  message: string;
}

export function describeAjvError(error: ErrorObject): FieldProblem {
  const base = jsonPointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    const path = joinPath(base, String(params.missingProperty));
    return { path, message: `"${path}" is required` };
  }
  if (error.keyword === 'additionalProperties') {
    const path = joinPath(base, String(params.additionalProperty));
    return { path, message: `"${path}" is not a known field` };
  }
  const path = base === '' ? '(body)' : base;
  return { path, message: `"${path}" ${error.message ?? 'is invalid'}` };
}

const CODE_BY_PART: Record<string, ErrorCode> = {
  body: 'invalid_body',
  querystring: 'invalid_query',
  params: 'invalid_parameter',
  headers: 'invalid_query',
};

export function validationFailure(errors: ErrorObject[], part: string | undefined): AppError {
  const problems = errors.map(describeAjvError);
  const first = problems[0] ?? { path: '(body)', message: 'is invalid' };
  return new AppError(CODE_BY_PART[part ?? 'body'] ?? 'invalid_body', first.message, {
    param: first.path === '(body)' ? undefined : first.path,
    details: { errors: problems },
  });
}

/** NUL cannot be stored by PostgreSQL, and a lone surrogate is silently corrupted by both stores. */
const UNSAFE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export type TextProblem = { kind: 'unsafe_text' | 'too_deep'; path: string };

/**
 * The first place in a parsed JSON value that the stores cannot keep as sent (a string or key
 * with NUL or an unpaired surrogate), or that is nested deeper than `depthMaximum`. Iterative, so
 * hostile nesting cannot exhaust the stack.
 */
export function findTextProblem(root: unknown, depthMaximum: number): TextProblem | undefined {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      if (UNSAFE_TEXT.test(value)) return { kind: 'unsafe_text', path };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= depthMaximum) return { kind: 'too_deep', path };
    const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, index) => [`[${index}]`, item]) : Object.entries(value);
    for (const [key, item] of entries.reverse()) {
      const childPath = key.startsWith('[') ? `${path}${key}` : path === '' ? key : `${path}.${key}`;
      if (!key.startsWith('[') && UNSAFE_TEXT.test(key)) return { kind: 'unsafe_text', path: childPath };
      pending.push({ value: item, path: childPath, depth: depth + 1 });
    }
  }
  return undefined;
}

function describeTextProblem(problem: TextProblem, depthMaximum: number): string {
  const where = problem.path === '' ? 'The request' : `"${problem.path}"`;
  return problem.kind === 'too_deep'
    ? `${where} is nested more than ${depthMaximum} levels deep.`
    : `${where} contains a NUL character or an unpaired UTF-16 surrogate.`;
}

/** Rejects what the stores would refuse or corrupt, naming where it is, before anything reads it. */
export function rejectUnsafeInput(body: unknown, query: unknown, depthMaximum: number): void {
  const inBody = findTextProblem(body, depthMaximum);
  if (inBody !== undefined) {
    throw new AppError('invalid_body', describeTextProblem(inBody, depthMaximum), { param: inBody.path === '' ? undefined : inBody.path });
  }
  const inQuery = findTextProblem(query, depthMaximum);
  if (inQuery !== undefined) {
    throw new AppError('invalid_query', describeTextProblem(inQuery, depthMaximum), { param: inQuery.path === '' ? undefined : inQuery.path });
  }
}
