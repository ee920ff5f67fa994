/**
 * Response serialization: the serializer Fastify would build from each route's response schema
 * (fast-json-stringify, which also drops fields a schema does not declare), built once per
 * distinct schema in a process rather than once per route of each app. A process serving one app
 * builds each the same number of times as before; a process that builds many apps over the same
 * routes (the test suite, about a second an app) reuses them.
 */
import type { FastifySerializerCompiler } from 'fastify';
import fastJsonStringify from 'fast-json-stringify';

type Serializer = (data: unknown) => string;

const serializersBySchemaText = new Map<string, Serializer>();

export const serializerCompiler: FastifySerializerCompiler<object> = ({ schema }) => {
  const text = JSON.stringify(schema);
  let serializer = serializersBySchemaText.get(text);
  if (serializer === undefined) {
    // No shared schemas are added to the app ($ref-free route schemas), so the schema alone decides the serializer.
    serializer = fastJsonStringify(schema) as Serializer;
    serializersBySchemaText.set(text, serializer);
  }
  return serializer;
};
