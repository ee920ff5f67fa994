/**
 * The views the assistant services build are the shapes the assistant routes' response schemas
 * declare (src/assistants/assistant-schemas.ts): the compiler checks each view type against its
 * schema, and real answers are validated against the schemas, so neither check passes vacuously.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  assistantViewSchema,
  conversionPreviewSchema,
  importPreviewSchema,
  sharesSchema,
  toolCandidatesSchema,
} from '../src/assistants/assistant-schemas.js';
import type { ConversionPreview } from '../src/assistants/assistant-conversion-service.js';
import type { ToolCandidateView } from '../src/assistants/assistant-tool-targets.js';
import type { ImportPreview } from '../src/assistants/assistant-transfer-service.js';
import type { AssistantSummaryView, AssistantView } from '../src/assistants/assistant-view.js';
import { createAjv } from '../src/validation/create-ajv.js';
import { startChatWorld, type ChatWorld } from './support/chat-world.js';
import type { DeclaredShape } from './support/declared-shape.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { request } from './support/test-server.js';

type AssistantAnswer = DeclaredShape<ReturnType<typeof assistantViewSchema>>;

describe('assistant views and their response schemas', () => {
  it('declare the same shapes (checked by the compiler)', () => {
    expectTypeOf<AssistantSummaryView>().toExtend<AssistantAnswer>();
    expectTypeOf<AssistantView>().toExtend<AssistantAnswer>();
    expectTypeOf<ToolCandidateView>().toExtend<DeclaredShape<typeof toolCandidatesSchema>['items'][number]>();
    expectTypeOf<ConversionPreview>().toExtend<DeclaredShape<typeof conversionPreviewSchema>>();
    expectTypeOf<ImportPreview>().toExtend<DeclaredShape<typeof importPreviewSchema>>();
  });

  describe('and the answers a server gives', () => {
    let world: ChatWorld;
    const ajv = createAjv({ strict: false });

    beforeAll(async () => {
      world = await startChatWorld('sqlite');
    });

    afterAll(async () => {
      await possiblyUnset(world)?.close();
    });

    const get = async (path: string) => {
      const response = await request(world.server, 'GET', path, { token: world.adminToken });
      expect(response.status).toBe(200);
      return response.body as unknown;
    };

    it('validate against the schemas', async () => {
      const assistantPath = `/api/assistants/${world.assistantId}`;
      expect(ajv.validate(assistantViewSchema('the assistant'), await get(assistantPath)), ajv.errorsText()).toBe(true);
      expect(ajv.validate(sharesSchema, await get(`${assistantPath}/shares`)), ajv.errorsText()).toBe(true);
      expect(ajv.validate(toolCandidatesSchema, await get(`${assistantPath}/tool-candidates`)), ajv.errorsText()).toBe(true);
      const exported = await get(`${assistantPath}/export`);
      const preview = await request(world.server, 'POST', '/api/assistants/import?dry_run=true', {
        token: world.adminToken,
        body: exported,
      });
      expect(preview.status).toBe(200);
      expect(ajv.validate(importPreviewSchema, preview.body), ajv.errorsText()).toBe(true);
    });
  });
});
