/**
 * Response serialization: the serializer Fastify would build from each route's response schema
 * (fast-json-stringify, which also drops fields a schema does not declare), built once per
 * distinct schema in a process, on its first use, rather than once per route of each app. A
 * process serving one app builds each at most once, as before; a process that builds many apps
 * over the same routes (the test suite, about a second an app) reuses them.
 */
import type { FastifySerializerCompiler } from 'fastify';
import fastJsonStringify from 'fast-json-stringify';

type Serializer = (data: unknown) => string;

interface SerializerOnFirstUse extends Serializer {
  build(): void;
}

const serializersBySchemaText = new Map<string, SerializerOnFirstUse>();

export const serializerCompiler: FastifySerializerCompiler<object> = ({ schema }) => {
  const text = JSON.stringify(schema);
  let serializer = serializersBySchemaText.get(text);
  if (serializer === undefined) {
    // No shared schemas are added to the app ($ref-free route schemas), so the schema alone decides
    // the serializer. Built on first use, as validators are (validation.ts says why).
    let built: Serializer | undefined;
    const build = (): Serializer => (built ??= fastJsonStringify(schema) as Serializer);
    serializer = Object.assign((data: unknown) => build()(data), { build: () => void build() });
    serializersBySchemaText.set(text, serializer);
  }
  return serializer;
};

/** Builds every serializer the routes built so far have asked for, now; returns how many there are. */
export function buildEverySerializer(): number {
  for (const serializer of serializersBySchemaText.values()) serializer.build();
  return serializersBySchemaText.size;
}
