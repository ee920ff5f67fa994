/**
 * Request validation. Bodies are checked strictly (no type coercion, unknown fields rejected);
 * query strings and path parameters are coerced, since they only ever arrive as text. Failures
 * become one 400 that names the field, with every problem listed in details.
 */
import type { ErrorObject } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { AppError, type ErrorCode } from '../errors/app-error.js';
import { createAjv } from '../validation/create-ajv.js';
import { describeAjvError } from '../validation/json-schema-problems.js';
import { validatorOnFirstUse, type ValidatorOnFirstUse } from '../validation/validator-on-first-use.js';

// Route schemas also carry OpenAPI-only keywords (description, example), which strict mode would refuse.
// `discriminator` lets a oneOf told apart by a property (an expectation's `type`) report only the named branch's problems.
const bodyAjv = createAjv({ strict: false, coerceTypes: false, removeAdditional: false, useDefaults: true, discriminator: true });
const textAjv = createAjv({ strict: false, coerceTypes: true, removeAdditional: false, useDefaults: true });
// OpenAPI's `format: binary` marks a multipart file field for Swagger UI; there is nothing to check in it.
for (const ajv of [bodyAjv, textAjv]) ajv.addFormat('binary', true);

/** Fastify passes the request as the root's parent to a validator that has `schemaEnv`, as to any Ajv one, so defaults may fill the root. */
type RouteValidator = ValidatorOnFirstUse & { schemaEnv: true };

// Compiled on first use (validator-on-first-use.ts says why). A schema Ajv cannot compile fails
// its route's first request instead of the start, so test/every-route-schema-compiles.test.ts
// compiles them all. Kept by schema text, not object: each app builds its routes' schemas
// afresh, and a process that builds many apps over the same routes (the test suite) would
// otherwise compile each again, which ajv's own cache (by object) does not prevent.
const validatorsBySchemaText = new Map<string, RouteValidator>();

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const body = httpPart === 'body';
  const key = `${body ? 'body' : 'text'}:${JSON.stringify(schema)}`;
  let validator = validatorsBySchemaText.get(key);
  if (validator === undefined) {
    validator = Object.assign(
      validatorOnFirstUse(() => (body ? bodyAjv : textAjv).compile(schema)),
      { schemaEnv: true as const },
    );
    validatorsBySchemaText.set(key, validator);
  }
  return validator;
};

/** Compiles every validator the routes built so far have asked for, now; returns how many there are. */
export function compileEveryValidator(): number {
  for (const validator of validatorsBySchemaText.values()) validator.compile();
  return validatorsBySchemaText.size;
}

const CODE_BY_PART: Record<string, ErrorCode> = {
  body: 'invalid_body',
  querystring: 'invalid_query',
  params: 'invalid_parameter',
  headers: 'invalid_query',
};

export function validationFailure(errors: ErrorObject[], part: string | undefined): AppError {
  const problems = errors.map((error) => describeAjvError(error));
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
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [`[${index}]`, item])
      : Object.entries(value);
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
    throw new AppError('invalid_query', describeTextProblem(inQuery, depthMaximum), {
      param: inQuery.path === '' ? undefined : inQuery.path,
    });
  }
}

/**
 * For a route that takes two body shapes (a multipart upload or JSON): the JSON one is checked
 * in the handler with the same strict rules and the same 400 as any other body, and typed by its
 * `as const` schema.
 */
export function bodyCheckerFor<const Schema extends JSONSchema>(schema: Schema): (body: unknown) => FromSchema<Schema> {
  const validate = validatorOnFirstUse(() => bodyAjv.compile(schema as object));
  return (body) => {
    if (!validate(body)) throw validationFailure(validate.errors ?? [], 'body');
    return body as FromSchema<Schema>;
  };
}
