/**
 * What a JSON Schema declares, as a type: FromSchema's answer without the index signatures it adds
 * where extra keys may pass. The view interfaces the services build have none, so the tests that
 * pin a view to its response schema compare against this.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

type WithoutIndexSignatures<T> = T extends (infer Item)[]
  ? WithoutIndexSignatures<Item>[]
  : T extends object
    ? { [Key in keyof T as string extends Key ? never : number extends Key ? never : Key]: WithoutIndexSignatures<T[Key]> }
    : T;

export type DeclaredShape<Schema extends JSONSchema> = WithoutIndexSignatures<FromSchema<Schema>>;
