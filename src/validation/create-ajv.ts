/** One way to make a JSON Schema validator (ajv with formats), so every schema in Merino is checked alike. */
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped in the module object.
const addFormats = addFormatsModule.default;

export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, ...options });
  addFormats(ajv);
  return ajv;
}
