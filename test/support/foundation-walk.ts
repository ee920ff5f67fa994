/**
 * The foundation's acceptance walk as a list of steps over real HTTP, so that one server
 * (test/foundation-walkthrough.test.ts) and a fleet behind a load balancer
 * (test/three-processes-behind-a-round-robin-proxy-serve-as-one.test.ts) walk the very same path:
 * the admin creates a creator; the creator makes an API key and, with it, a classic and a
 * multi-tool assistant, shares, publishes, exports and re-imports them; a user without access
 * gets 404. Each step is one `it` in the suite that runs it, in order; they share state.
 */
import { expect } from 'vitest';
import { createUser, request, type CreatedUser } from './test-server.js';
import { uploadFile } from './upload-file.js';

export interface FoundationWalkWorld {
  /** Where every request of the walk goes: a server, or a proxy in front of several. */
  target: { baseUrl: string };
  adminToken: string;
  /** Makes an organization (there is no API for it; suites insert it into the store). */
  createOrganization: (slug: string, name: string) => Promise<number>;
}

export interface FoundationWalkStep {
  name: string;
  run(): Promise<void>;
}

/** The steps, reading the world when each runs (suites fill it in their `beforeAll`). */
export function foundationWalk(world: () => FoundationWalkWorld): readonly FoundationWalkStep[] {
  let creator: CreatedUser;
  let colleague: CreatedUser;
  let outsider: CreatedUser;
  let apiKey: string;
  const ids: Record<'classic' | 'multiTool', number> = { classic: 0, multiTool: 0 };

  return [
    {
      name: 'lets the admin create a creator, a colleague and a creator of another organization',
      async run() {
        const { target, adminToken, createOrganization } = world();
        creator = await createUser(target, adminToken, { email: 'teacher@school.test', role: 'creator' });
        colleague = await createUser(target, adminToken, { email: 'colleague@school.test', role: 'learner' });
        const otherOrganization = await createOrganization('other-school', 'Other school');
        outsider = await createUser(target, adminToken, {
          email: 'outsider@other.test',
          role: 'creator',
          organization_id: otherOrganization,
        });
      },
    },
    {
      name: 'gives the creator an API key that works as a bearer token',
      async run() {
        const { target } = world();
        const created = await request(target, 'POST', '/api/api-keys', { token: creator.token, body: { name: 'course scripts' } });
        expect(created.status).toBe(201);
        apiKey = created.body.key;
        const me = await request(target, 'GET', '/api/me', { token: apiKey });
        expect(me.body).toMatchObject({ email: 'teacher@school.test', role: 'creator', credential: 'api_key' });
      },
    },
    {
      name: 'creates a classic and a multi-tool assistant with the API key',
      async run() {
        const { target } = world();
        const classic = await request(target, 'POST', '/api/assistants', {
          token: apiKey,
          body: {
            name: 'Biology tutor',
            system_prompt: 'You are a patient biology tutor.',
            prompt_template: 'Context: {context}\n\nQuestion: {user_input}',
            metadata: JSON.stringify({
              connector: 'openai',
              llm: 'gpt-4o-mini',
              prompt_processor: 'simple_augment',
              rag_processor: 'no_rag',
            }),
            rag_collections: 'kb-cells,kb-genetics',
            rag_top_k: 4,
          },
        });
        // A single-file tool may only name a file its owner may read: the teacher uploads it first.
        const essayGuide = (await uploadFile(target, apiKey, 'essay-guide.md', '# Essay guide')).file_path;
        const multiTool = await request(target, 'POST', '/api/assistants', {
          token: apiKey,
          body: {
            name: 'Essay coach',
            metadata: {
              assistant_type: 'multi_tool',
              prompt_processor: 'multi_augment',
              tools: ['no_rag', { plugin: 'single_file', config: { file_path: essayGuide } }],
            },
          },
        });
        expect([classic.status, multiTool.status]).toEqual([201, 201]);
        expect(classic.body).toMatchObject({
          assistant_type: 'classic',
          owner: 'teacher@school.test',
          rag_collections: ['kb-cells', 'kb-genetics'],
        });
        expect(multiTool.body.assistant_type).toBe('multi_tool');
        expect(multiTool.body.metadata.tools[1]).toEqual({
          type: 'single_file_rag',
          enabled: true,
          config: { file_path: essayGuide },
        });
        ids.classic = classic.body.id;
        ids.multiTool = multiTool.body.id;
      },
    },
    {
      name: 'shares the classic assistant with a colleague, who then sees its configuration',
      async run() {
        const { target } = world();
        const shared = await request(target, 'PUT', `/api/assistants/${ids.classic}/shares`, {
          token: apiKey,
          body: { user_emails: ['colleague@school.test'] },
        });
        expect(shared.body).toEqual({ user_emails: ['colleague@school.test'] });
        const seen = await request(target, 'GET', `/api/assistants/${ids.classic}`, { token: colleague.token });
        expect(seen.status).toBe(200);
        expect(seen.body.system_prompt).toBe('You are a patient biology tutor.');
      },
    },
    {
      name: 'publishes the multi-tool assistant to the organization',
      async run() {
        const { target } = world();
        const published = await request(target, 'PUT', `/api/assistants/${ids.multiTool}/publish`, {
          token: apiKey,
          body: { published: true },
        });
        expect(published.body.published).toBe(true);
        const list = await request(target, 'GET', '/api/assistants', { token: colleague.token });
        expect(list.body.items.map((item: { id: number }) => item.id).sort()).toEqual([ids.classic, ids.multiTool].sort());
      },
    },
    {
      name: 'exports both and re-imports them as equal copies',
      async run() {
        const { target } = world();
        for (const id of [ids.classic, ids.multiTool]) {
          const exported = await request(target, 'GET', `/api/assistants/${id}/export`, { token: apiKey });
          const imported = await request(target, 'POST', '/api/assistants/import', { token: apiKey, body: exported.body });
          expect(imported.status).toBe(201);
          const original = await request(target, 'GET', `/api/assistants/${id}`, { token: apiKey });
          for (const field of [
            'name',
            'description',
            'system_prompt',
            'prompt_template',
            'metadata',
            'rag_collections',
            'rag_top_k',
            'assistant_type',
          ]) {
            expect(imported.body[field], field).toEqual(original.body[field]);
          }
          expect(imported.body.published).toBe(false);
        }
      },
    },
    {
      name: 'answers 404 to a user of another organization, for reading, exporting and changing',
      async run() {
        const { target } = world();
        for (const [method, path, body] of [
          ['GET', `/api/assistants/${ids.classic}`, undefined],
          ['GET', `/api/assistants/${ids.multiTool}/export`, undefined],
          ['PATCH', `/api/assistants/${ids.classic}`, { name: 'mine now' }],
        ] as const) {
          const response = await request(target, method, path, { token: outsider.token, body });
          expect(response.status, `${method} ${path}`).toBe(404);
        }
        const list = await request(target, 'GET', '/api/assistants', { token: outsider.token });
        expect(list.body).toEqual({ items: [], total: 0 });
      },
    },
  ];
}
