/**
 * An assistant's test cases and the built-in adversarial presets (docs/assistant-tests.md), for
 * whoever manages the assistant; everyone else gets 404.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  addedCasesSchema,
  addPresetsInputSchema,
  caseFromAnswerInputSchema,
  presetListSchema,
  testCaseInputSchema,
  testCaseListSchema,
  testCaseSchema,
  testSuggestionsInputSchema,
  testSuggestionsSchema,
} from '../../evaluation/assistant-test-schemas.js';
import type { Services } from '../../services.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema, noContentResponse, pathIdsSchema } from '../schemas.js';

export type AssistantTestCaseRouteServices = Pick<Services, 'testCases' | 'testSuggestions' | 'settings'>;

const WHO = "For whoever manages the assistant (its owner, its organization's admins, system admins); everyone else gets 404.";

export const assistantTestCaseRoutes: FastifyPluginAsync<AssistantTestCaseRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);
  const { settings } = services;
  const caseInput = testCaseInputSchema({
    turnsMaximum: settings.testCaseTurnsMaximum,
    turnCharactersMaximum: settings.testCaseTurnCharactersMaximum,
  });
  const caseParameters = pathIdsSchema('id', 'caseId');

  routes.post(
    '/api/assistants/:id/tests',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Add a test case to the assistant',
        description: `${WHO} Past TEST_CASES_PER_ASSISTANT_MAX cases, 409 test_cases_limit.`,
        params: idParametersSchema,
        body: caseInput,
        response: { 201: { ...testCaseSchema, description: 'The new test case' }, ...commonErrorResponses, 409: errorResponseSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.testCases.create(callContext(request), request.params.id, request.body)),
  );

  routes.post(
    '/api/assistants/:id/tests/from-answer',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Add a test case made from an answer a learner rated',
        description:
          `${WHO} The answer must be one GET /api/assistants/{id}/feedback lists (rated, in a chat with this assistant that the ` +
          "learner's organization lets owners read); any other id gets 404. The case replays the learner's turns up to the " +
          'answer, is named from the first question and holds one judged expectation built from the rating (docs/assistant-tests.md). ' +
          'Past TEST_CASES_PER_ASSISTANT_MAX cases, 409 test_cases_limit.',
        params: idParametersSchema,
        body: caseFromAnswerInputSchema,
        response: { 201: { ...testCaseSchema, description: 'The new test case' }, ...commonErrorResponses, 409: errorResponseSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.testCases.fromRatedAnswer(callContext(request), request.params.id, request.body)),
  );

  routes.get(
    '/api/assistants/:id/tests',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: "List the assistant's test cases",
        description: WHO,
        params: idParametersSchema,
        querystring: pageBoundsQuerySchema(settings.pageSizeMaximum),
        response: { 200: testCaseListSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.testCases.list(callContext(request), request.params.id, request.query),
  );

  routes.get(
    '/api/assistants/:id/tests/:caseId',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Read one test case',
        description: WHO,
        params: caseParameters,
        response: { 200: { ...testCaseSchema, description: 'The test case' }, ...commonErrorResponses },
      },
    },
    async (request) => services.testCases.get(callContext(request), request.params.id, request.params.caseId),
  );

  routes.put(
    '/api/assistants/:id/tests/:caseId',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Replace a test case (name, kind, turns and expectations)',
        description: WHO,
        params: caseParameters,
        body: caseInput,
        response: { 200: { ...testCaseSchema, description: 'The test case' }, ...commonErrorResponses },
      },
    },
    async (request) => services.testCases.replace(callContext(request), request.params.id, request.params.caseId, request.body),
  );

  routes.delete(
    '/api/assistants/:id/tests/:caseId',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Delete a test case (runs keep their results of it)',
        description: WHO,
        params: caseParameters,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.testCases.delete(callContext(request), request.params.id, request.params.caseId);
      return reply.status(204).send();
    },
  );

  routes.get(
    '/api/assistants/:id/test-presets',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'The built-in adversarial test cases',
        description: WHO,
        params: idParametersSchema,
        response: { 200: { ...presetListSchema, description: 'The adversarial presets' }, ...commonErrorResponses },
      },
    },
    async (request) => ({ presets: await services.testCases.presets(callContext(request), request.params.id) }),
  );

  routes.post(
    '/api/assistants/:id/test-presets',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Add adversarial presets as test cases in one call (`keys`: "all" or the preset keys)',
        description: `${WHO} Past TEST_CASES_PER_ASSISTANT_MAX cases, 409 test_cases_limit.`,
        params: idParametersSchema,
        body: addPresetsInputSchema,
        response: { 201: { ...addedCasesSchema, description: 'The cases added' }, ...commonErrorResponses, 409: errorResponseSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send({ cases: await services.testCases.addPresets(callContext(request), request.params.id, request.body) }),
  );

  routes.post(
    '/api/assistants/:id/test-suggestions',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: "Propose test cases with the organization's small fast model (nothing is saved)",
        description:
          `${WHO} The model reads the system prompt and a sample of the knowledge bases' passages (TEST_SUGGESTION_PASSAGE_MAX_CHARS) ` +
          'and proposes up to `count` cases (TEST_SUGGESTIONS_MAX); proposals that are not valid cases are dropped and counted. ' +
          'Accept one with POST /api/assistants/{id}/tests. Without a small fast model, 409 no_small_fast_model; past ' +
          'TEST_SUGGESTION_TIMEOUT_MS, 504 upstream_timeout; an answer that holds no case, no proposals and `answer_readable: false`.',
        params: idParametersSchema,
        body: testSuggestionsInputSchema(settings.testSuggestionsMaximum),
        response: {
          200: { ...testSuggestionsSchema, description: 'The proposed cases' },
          ...commonErrorResponses,
          409: errorResponseSchema,
          502: errorResponseSchema,
          504: errorResponseSchema,
        },
      },
    },
    async (request) => services.testSuggestions.propose(callContext(request), request.params.id, request.body),
  );
};
