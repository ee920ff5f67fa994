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
