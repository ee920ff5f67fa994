/** The JSON body an operation of the API answers with on success, named by its path and method in the generated types. */
import type { paths } from './generated/openapi';

type SuccessResponses<Operation> = Operation extends { responses: infer Responses }
  ? | (Responses extends { 200: infer Ok } ? Ok : never)
    | (Responses extends { 201: infer Created } ? Created : never)
    | (Responses extends { 202: infer Accepted } ? Accepted : never)
  : never;

type JsonContent<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;

export type JsonAnswer<Path extends keyof paths, Method extends keyof paths[Path]> = JsonContent<SuccessResponses<paths[Path][Method]>>;
