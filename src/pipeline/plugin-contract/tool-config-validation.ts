/**
 * Checks a tool's per-assistant config against the tool's JSON Schema, reporting every problem,
 * and returns the config with the schema's defaults applied (what the tool will run with).
 */
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../../validation/create-ajv.js';
import { describeAjvError, type FieldProblem } from '../../validation/json-schema-problems.js';
import type { ToolConfig, ToolDefinition } from './tool-definition.js';

// Plugin schemas may carry UI hints (titles, descriptions, widgets) that strict mode would refuse.
const ajv = createAjv({ strict: false, useDefaults: true, coerceTypes: false });
const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Throws when the schema itself is not valid JSON Schema: the registry refuses such a plugin. */
export function compileConfigSchema(schema: Record<string, unknown>): void {
  validatorFor(schema);
}

export type ConfigCheck = { valid: true; config: ToolConfig; errors: [] } | { valid: false; errors: FieldProblem[] };

export function checkToolConfig(definition: ToolDefinition, config: unknown): ConfigCheck {
  const candidate: unknown = config === undefined ? {} : structuredClone(config);
  const validate = validatorFor(definition.configSchema);
  if (validate(candidate)) return { valid: true, config: candidate as ToolConfig, errors: [] };
  return { valid: false, errors: (validate.errors ?? []).map((error) => describeAjvError(error, '(config)')) };
}
