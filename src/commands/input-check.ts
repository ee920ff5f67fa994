/**
 * Checks what a command hands a service against the same JSON Schema its HTTP route validates
 * with, so the command line accepts exactly what the API accepts; a value that does not fit is a
 * usage error naming the option.
 */
import { createAjv } from '../validation/create-ajv.js';
import { describeAjvError } from '../validation/json-schema-problems.js';
import { validatorOnFirstUse, type ValidatorOnFirstUse } from '../validation/validator-on-first-use.js';
import { CommandUsageError } from './admin-command.js';

const commandAjv = createAjv();

/** A command's validator for a schema: `commandValidator<NewUserInput>(newUserSchema)`, compiled on first use. */
export function commandValidator<Input>(schema: object): ValidatorOnFirstUse<Input> {
  return validatorOnFirstUse(() => commandAjv.compile<Input>(schema));
}

/** `input` as the schema's type, or a CommandUsageError whose words name the field as an option (`--slug`). */
export function checkedInput<Input>(validate: ValidatorOnFirstUse<Input>, input: Record<string, unknown>): Input {
  if (validate(input)) return input;
  const error = validate.errors![0]!;
  const problem = describeAjvError(error);
  const option = `--${problem.path.replaceAll('_', '-')}`;
  const allowed = error.keyword === 'enum' ? `: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` : '';
  throw new CommandUsageError(`${problem.message.replace(`"${problem.path}"`, option)}${allowed}.`);
}
