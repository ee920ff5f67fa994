/** Turns ajv's errors into `{path, message}` problems that name fields as clients write them (`tools[0].type`). */
import type { ErrorObject } from 'ajv';

export interface FieldProblem {
  path: string;
  message: string;
}

function jsonPointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`), '');
}

function joinPath(base: string, child: string): string {
  return base === '' ? child : `${base}.${child}`;
}

/** `root` names the whole value when an error is about it rather than a field (e.g. `(body)`). */
export function describeAjvError(error: ErrorObject, root = '(body)'): FieldProblem {
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
  const path = base === '' ? root : base;
  return { path, message: `"${path}" ${error.message ?? 'is invalid'}` };
}
