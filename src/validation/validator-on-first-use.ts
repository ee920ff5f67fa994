/**
 * A JSON Schema validator compiled on its first call rather than when its module loads. Every
 * process loads the modules of every command and route, but uses few of their schemas soon after
 * it starts (most never); compiling them all (and each Ajv instance's meta-schema) was most of a
 * second of every server or command start. It reads like Ajv's own: call it, then read `errors`.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';

export interface ValidatorOnFirstUse<Data = unknown> {
  (data: unknown, context?: Parameters<ValidateFunction>[1]): data is Data;
  /** The last call's problems, as Ajv leaves them. */
  errors?: ErrorObject[] | null;
  /** Compiles now, so a schema Ajv refuses fails here rather than at its first use. */
  compile(): void;
}

export function validatorOnFirstUse<Data = unknown>(compile: () => ValidateFunction<Data>): ValidatorOnFirstUse<Data> {
  let compiled: ValidateFunction<Data> | undefined;
  const validate = Object.assign(
    (data: unknown, context?: Parameters<ValidateFunction>[1]): data is Data => {
      compiled ??= compile();
      const valid = compiled(data, context);
      validate.errors = compiled.errors;
      return valid;
    },
    { errors: null as ErrorObject[] | null | undefined, compile: () => void (compiled ??= compile()) },
  );
  return validate;
}
