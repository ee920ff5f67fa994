/**
 * Proves the moodle_augment prompt processor: it declares `{moodle_user}` and resolves it to the
 * requester's Moodle user id (a trusted id as is; else looked up by email on a fake Moodle over
 * real loopback HTTP), falling back to the requester's email when Moodle is absent, fails, or does
 * not know them; and it renders like simple_augment, with the identifier inline (not framed like
 * tool output) and a learner's own "{moodle_user}" left as written.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../src/pipeline/conversation/messages.js';
import type { Integrations, Requester } from '../src/pipeline/plugin-contract/ports.js';
import type { PromptInput } from '../src/pipeline/plugin-contract/prompt-processor-definition.js';
import { loadRegistries } from '../src/pipeline/plugin-loading/registries.js';
import moodleAugment from '../src/prompt-processors/moodle_augment.js';
import { startFakeMoodleServer, type FakeMoodleServer } from './fakes/fake-moodle-server.js';
import { buildToolContext, TEST_ASSISTANT, moodleIntegration as sharedMoodleIntegration } from './support/tool-context.js';
import { possiblyUnset } from './support/possibly-unset.js';

const TOKEN = 'augment-token-81d0';
const ADA: Requester = { userId: 5, email: 'ada@school.test' };

let moodle: FakeMoodleServer;

beforeAll(async () => {
  moodle = await startFakeMoodleServer({
    token: TOKEN,
    users: [{ id: 31, username: 'ada', firstname: 'Ada', lastname: 'Lovelace', email: 'ada@school.test' }],
  });
});

afterAll(async () => {
  await possiblyUnset(moodle)?.close();
});

beforeEach(() => {
  moodle.reset();
});

function moodleIntegration(overrides: Partial<NonNullable<Integrations['moodle']>> = {}): NonNullable<Integrations['moodle']> {
  return sharedMoodleIntegration({ apiUrl: moodle.apiUrl, token: TOKEN }, overrides);
}

function resolve(requester: Requester, moodleSettings?: NonNullable<Integrations['moodle']>) {
  return moodleAugment.resolveValues!(buildToolContext({ requester, integrations: { moodle: moodleSettings } }));
}

function input(
  promptTemplate: string,
  values: Record<string, string>,
  messages: ChatMessage[] = [{ role: 'user', content: 'When is my essay due?' }],
): PromptInput {
  return {
    assistant: { ...TEST_ASSISTANT, promptTemplate, systemPrompt: 'You are an academic advisor.' },
    messages,
    values,
    knownPlaceholders: new Set(['context', 'file']),
    sources: [{ title: 'Handbook', url: 'https://example.edu/handbook', similarity: 0.9, tool: 'simple_rag', placeholder: 'context' }],
  };
}

describe('moodle_augment resolves {moodle_user}', () => {
  it('is installed and declares the moodle_user placeholder', async () => {
    const registries = await loadRegistries({ info: () => undefined, error: () => undefined });
    expect(registries.promptProcessors.get('moodle_augment')?.placeholders).toEqual(['moodle_user']);
  });

  it("looks up the requester's Moodle id by their email", async () => {
    expect(await resolve(ADA, moodleIntegration())).toEqual({ moodle_user: '31' });
    expect(moodle.calls.map((call) => [call.wsfunction, call.parameters])).toEqual([
      ['core_user_get_users_by_field', { field: 'email', values: ['ada@school.test'] }],
    ]);
  });

  it('uses a trusted Moodle id from the request as is, with or without Moodle configured', async () => {
    expect(await resolve({ ...ADA, moodleUserId: '77' }, moodleIntegration())).toEqual({ moodle_user: '77' });
    expect(await resolve({ ...ADA, moodleUserId: '77' })).toEqual({ moodle_user: '77' });
    expect(moodle.calls).toHaveLength(0);
  });

  it('falls back to the email without Moodle', async () => {
    expect(await resolve(ADA)).toEqual({ moodle_user: 'ada@school.test' });
  });

  it('falls back to the email when Moodle refuses the token, fails, is slow, or does not know the requester', async () => {
    expect(await resolve(ADA, moodleIntegration({ token: 'wrong-token' }))).toEqual({ moodle_user: 'ada@school.test' });
    moodle.enqueue({ status: 500 });
    expect(await resolve(ADA, moodleIntegration())).toEqual({ moodle_user: 'ada@school.test' });
    moodle.enqueue({ delayMs: 5_000 });
    expect(await resolve(ADA, moodleIntegration({ timeoutMilliseconds: 100 }))).toEqual({ moodle_user: 'ada@school.test' });
    expect(await resolve({ userId: 6, email: 'stranger@school.test' }, moodleIntegration())).toEqual({
      moodle_user: 'stranger@school.test',
    });
  });

  it('ignores a Moodle id that is not a positive number and looks the requester up instead', async () => {
    expect(await resolve({ ...ADA, moodleUserId: 'ada' }, moodleIntegration())).toEqual({ moodle_user: '31' });
  });
});

describe('moodle_augment renders like simple_augment', () => {
  it('puts the identifier inline and the context framed with its sources', () => {
    const messages = moodleAugment.process(
      input('Student {moodle_user} asks:{user_input}Context:{context}', { moodle_user: '31', context: 'Essays are due on Fridays.' }),
    );
    expect(messages).toEqual([
      { role: 'system', content: 'You are an academic advisor.' },
      {
        role: 'user',
        content:
          'Student 31 asks:\n\nWhen is my essay due?\n\nContext:\n\nEssays are due on Fridays.\n\n## Available Sources\n\n1. [Handbook](https://example.edu/handbook) (similarity: 0.900)\n\n\n',
      },
    ]);
  });

  it("leaves a learner's own {moodle_user} as written, and empties other tools' placeholders", () => {
    const messages = moodleAugment.process(
      input('{moodle_user}|{user_input}|{file}|{unknown}', { moodle_user: 'ada@school.test', file: 'FILE' }, [
        { role: 'user', content: 'my id is {moodle_user}' },
      ]),
    );
    expect(messages.at(-1)!.content).toBe('ada@school.test|\n\nmy id is {moodle_user}\n\n||{unknown}');
  });

  it('passes the message through unchanged without a template, as simple_augment does', () => {
    const messages = moodleAugment.process(input('', { moodle_user: '31' }));
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'When is my essay due?' });
  });
});
