/**
 * Turns an API error into messages per form field. The server names fields by their JSON path
 * (`name`, `metadata.tools[1].config.collections`); a form asks for the message of a path, or of
 * anything below it, so a tool card can show every problem of its own config.
 */
import { ApiError } from './api-error';

export type FieldErrors = Record<string, string>;

/** Normalises `/metadata/tools/1/type` and `metadata.tools[1].type` to the second form. */
export function normalisePath(path: string): string {
  if (!path.startsWith('/')) return path.replace(/^body\./, '');
  return path
    .slice(1)
    .split('/')
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
}

/** Every problem of an API error by field path; the first message wins for a path named twice. */
export function fieldErrorsOf(error: unknown): FieldErrors {
  if (!(error instanceof ApiError)) return {};
  const errors: FieldErrors = {};
  const problems = error.problems.length > 0 ? error.problems : error.param ? [{ path: error.param, message: error.message }] : [];
  for (const problem of problems) {
    const path = normalisePath(problem.path);
    if (path && errors[path] === undefined) errors[path] = problem.message;
  }
  return errors;
}

/** The message for a field, or for the first problem below it (a path prefix). */
export function errorAt(errors: FieldErrors, path: string): string | undefined {
  if (errors[path] !== undefined) return errors[path];
  const below = Object.keys(errors).find((key) => key.startsWith(`${path}.`) || key.startsWith(`${path}[`));
  return below === undefined ? undefined : errors[below];
}
