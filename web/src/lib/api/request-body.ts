/** The JSON body an operation of the API accepts, named by its path and method in the generated types. */
import type { paths } from './generated/openapi';

type JsonContent<Content> = Content extends { content: { 'application/json': infer Body } } ? Body : never;

export type RequestBody<Path extends keyof paths, Method extends keyof paths[Path]> = paths[Path][Method] extends {
  requestBody?: infer Body;
}
  ? JsonContent<NonNullable<Body>>
  : never;
