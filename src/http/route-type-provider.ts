/**
 * How routes get their types from their schemas: request bodies, parameters and query strings are
 * typed by json-schema-to-ts from the `as const` schemas that validate them, as
 * @fastify/type-provider-json-schema-to-ts does, so no route restates a schema as a generic.
 * Answers are left untyped, unlike that provider: the services declare what they return and the
 * response schemas describe it, and typing answers from the schemas would demand an index
 * signature of every service interface that carries an open object (metadata, usage, sources).
 */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

export interface RouteTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends JSONSchema ? FromSchema<this['schema']> : unknown;
  serializer: unknown;
}

export type TypedRoutes = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  RouteTypeProvider
>;

/** The routes of one area, typed by their schemas. */
export function typedRoutes(app: FastifyInstance): TypedRoutes {
  return app.withTypeProvider<RouteTypeProvider>();
}
