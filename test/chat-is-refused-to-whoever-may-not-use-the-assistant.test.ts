/**
 * Proves over real HTTP, on SQLite and PostgreSQL, that `/v1/chat/completions` (through the
 * official `openai` client) and LAMB's `/lamb/v1/completions` answer only the callers the
 * permission module lets chat: every caller × assistant state is tried, by session and by API key,
 * and each refused caller gets the same 404 `model_not_found` as for an assistant that does not
 * exist, while the assistant's answer never reaches them. Anonymous callers get 401.
 *
 * Why this file exists: the access matrix checked only the `allowed_actions` list, so removing the
 * chat check in the completion service let anyone chat with any private assistant unnoticed.
 */
import OpenAI, { AuthenticationError, NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ASSISTANT_CALLERS,
  ASSISTANT_STATES,
  SHARED_LEARNER_EMAIL,
  signInAssistantCallers,
  type AssistantCaller,
  type AssistantState,
} from './support/assistant-callers.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

/** Who may chat with an assistant in each state (DESIGN §9 and src/auth/permissions.ts). */
const ALLOWED: Record<AssistantState, readonly AssistantCaller[]> = {
  private: ['the system admin', 'the organization A admin', 'the owner'],
  shared: ['the system admin', 'the organization A admin', 'the owner', 'the learner it is shared with'],
  published: [
    'the system admin',
    'the organization A admin',
    'the owner',
    'another creator of organization A',
    'the learner it is shared with',
    'a learner of organization A',
  ],
  deleted: [],
};

/** The answer simple-bypass gives is the last message, so a refused caller must never see this text. */
const QUESTION = 'Which organelle makes ATP?';

const CASES = ASSISTANT_STATES.flatMap((state) =>
  ASSISTANT_CALLERS.map((caller) => ({ caller, state, allowed: ALLOWED[state].includes(caller) })),
);

describe.each(TEST_DIALECTS)('who may chat with an assistant, over HTTP on %s', (dialect) => {
  let server: TestServer;
  const sessions = {} as Record<AssistantCaller, string>;
  const apiKeys = {} as Record<AssistantCaller, string>;
  const assistants = {} as Record<AssistantState, number>;

  function client(token: string): OpenAI {
    return new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    Object.assign(sessions, (await signInAssistantCallers(server, await loginAsAdmin(server))).sessions);
    for (const caller of ASSISTANT_CALLERS) {
      const created = await request(server, 'POST', '/api/api-keys', { token: sessions[caller], body: { name: `chat key of ${caller}` } });
      expect(created.status, created.text).toBe(201);
      apiKeys[caller] = created.body.key as string;
    }
    const owner = sessions['the owner'];
    for (const state of ASSISTANT_STATES) {
      const created = await request(server, 'POST', '/api/assistants', {
        token: owner,
        body: {
          name: `${state} tutor`,
          system_prompt: 'You are a tutor.',
          metadata: { assistant_type: 'multi_tool', connector: 'bypass', llm: 'simple-bypass', tools: [] },
        },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as number;
      assistants[state] = id;
      if (state === 'shared')
        expect(
          (
            await request(server, 'PUT', `/api/assistants/${id}/shares`, {
              token: owner,
              body: { user_emails: [SHARED_LEARNER_EMAIL] },
            })
          ).status,
        ).toBe(200);
      if (state === 'published')
        expect((await request(server, 'PUT', `/api/assistants/${id}/publish`, { token: owner, body: { published: true } })).status).toBe(
          200,
        );
      if (state === 'deleted') expect((await request(server, 'DELETE', `/api/assistants/${id}`, { token: owner })).status).toBe(204);
    }
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe.each(['session', 'API key'] as const)('with a %s', (credential) => {
    const tokenOf = (caller: AssistantCaller) => (credential === 'session' ? sessions[caller] : apiKeys[caller]);

    it.each(CASES)('$caller on the $state assistant: allowed $allowed', async ({ caller, state, allowed }) => {
      const model = `lamb_assistant.${assistants[state]}`;
      const attempt = client(tokenOf(caller)).chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] });
      if (allowed) {
        const answer = await attempt;
        expect(answer.choices[0]!.message.content).toBe(QUESTION);
        return;
      }
      const error = await attempt.then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error, `${caller} must not chat with the ${state} assistant`).toBeInstanceOf(NotFoundError);
      expect((error as NotFoundError).code).toBe('model_not_found');
      expect((error as NotFoundError).message).toContain(`The model "${model}" does not exist or you do not have access to it.`);
    });
  });

  it.each(CASES)(
    "LAMB's /lamb/v1/completions: $caller on the $state assistant, streamed: allowed $allowed",
    async ({ caller, state, allowed }) => {
      const response = await fetch(`${server.baseUrl}/lamb/v1/completions?assistant=${assistants[state]}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sessions[caller]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: QUESTION }] }),
      });
      const text = await response.text();
      if (allowed) {
        expect(response.status, text).toBe(200);
        expect(text).toContain('[DONE]');
        return;
      }
      expect(response.status, text).toBe(404);
      expect(JSON.parse(text).error.code).toBe('model_not_found');
      expect(text).not.toContain(QUESTION);
    },
  );

  it('refuses the same way for an assistant id that does not exist, so refusals reveal nothing', async () => {
    const error = await client(sessions['a learner of organization B'])
      .chat.completions.create({ model: 'lamb_assistant.987654', messages: [{ role: 'user', content: QUESTION }] })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('model_not_found');
  });

  it.each(ASSISTANT_STATES)('answers an anonymous caller 401 for the %s assistant, and a made-up bearer token too', async (state) => {
    const model = `lamb_assistant.${assistants[state]}`;
    const anonymous = await request(server, 'POST', '/v1/chat/completions', {
      body: { model, messages: [{ role: 'user', content: QUESTION }] },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain(QUESTION);
    const forged = await client('mrk_forgedkey0123456789abcdefabcdef')
      .chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(forged).toBeInstanceOf(AuthenticationError);
  });

  it('lists as models exactly the assistants each caller may chat with', async () => {
    for (const caller of ASSISTANT_CALLERS) {
      const listed = new Set<string>();
      for await (const model of client(sessions[caller]).models.list()) listed.add(model.id);
      const expected = ASSISTANT_STATES.filter((state) => ALLOWED[state].includes(caller)).map(
        (state) => `lamb_assistant.${assistants[state]}`,
      );
      const ours = ASSISTANT_STATES.map((state) => `lamb_assistant.${assistants[state]}`).filter((id) => listed.has(id));
      expect(ours, caller).toEqual(expected);
    }
  });
});
