/**
 * Every templates endpoint refuses hostile input with a clear 400 naming the field (never a 5xx,
 * never a stack trace), and answers 50 of the same request sent at once correctly: 50 creates,
 * duplicates and saves make 50 distinct templates with 50 audit entries; 50 edits of one
 * template all succeed; 50 deletes of one template delete it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { possiblyUnset } from './support/possibly-unset.js';
import { RUBRIC_CONTENT } from './support/template-bodies.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const AT_ONCE = 50;

const PROMPT = { kind: 'prompt', name: 'Tutor', system_prompt: 'Ask questions.' };

/** A hostile body, and the field the 400 must name. */
const HOSTILE_CREATES: Array<[string, Record<string, unknown>, string]> = [
  ['no kind', { name: 'x', system_prompt: 'x' }, 'kind'],
  ['an unknown kind', { ...PROMPT, kind: 'assistant' }, 'kind'],
  ['an empty name', { ...PROMPT, name: '' }, 'name'],
  ['a name too long', { ...PROMPT, name: 'n'.repeat(201) }, 'name'],
  ['a NUL in the name', { ...PROMPT, name: 'a\u0000b' }, 'name'],
  ['an unknown field', { ...PROMPT, owner_id: 1 }, 'owner_id'],
  ['a prompt template with empty prompts', { kind: 'prompt', name: 'x', system_prompt: '  ' }, 'system_prompt'],
  ['a prompt template with a rubric', { ...PROMPT, rubric: RUBRIC_CONTENT }, 'rubric'],
  ['a rubric template without a rubric', { kind: 'rubric', name: 'x' }, 'rubric'],
  ['a rubric template with a prompt', { kind: 'rubric', name: 'x', rubric: RUBRIC_CONTENT, prompt_template: 'x' }, 'prompt_template'],
  ['a rubric breaking LAMB rules', { kind: 'rubric', name: 'x', rubric: { ...RUBRIC_CONTENT, criteria: [] } }, 'rubric.criteria'],
  ['eleven tags', { ...PROMPT, tags: Array.from({ length: 11 }, (_unused, index) => `tag${index}`) }, 'tags'],
  ['a tag of markup', { ...PROMPT, tags: ['<script>'] }, 'tags[0]'],
  ['a language that is not a tag', { ...PROMPT, language: 'english!' }, 'language'],
  ['an unknown visibility', { ...PROMPT, visibility: 'public' }, 'visibility'],
];

describe.each(TEST_DIALECTS)('hostile and concurrent template requests on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let teacher: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    teacher = (await createUser(server, adminToken, { email: 'hostile-teacher@merino.test', role: 'creator' })).token;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  async function made(path: string, body: unknown): Promise<Record<string, any>> {
    const response = await request(server, 'POST', path, { token: teacher, body });
    expect(response.status, response.text).toBe(201);
    return response.body;
  }

  it('refuses each hostile create with a 400 that names the field', async () => {
    const problems: string[] = [];
    for (const [label, body, param] of HOSTILE_CREATES) {
      const response = await request(server, 'POST', '/api/templates', { token: teacher, body });
      if (response.status !== 400 || response.body?.error?.param !== param || response.text.includes('    at '))
        problems.push(`${label}: ${response.status} ${response.text.slice(0, 200)}`);
    }
    expect(problems).toEqual([]);
  });

  it('refuses hostile edits, ids, filters and save bodies with a 400 that names the field', async () => {
    const template = await made('/api/templates', PROMPT);
    const assistant = await made('/api/assistants', {
      name: 'Tutor',
      system_prompt: 'Hi',
      metadata: { connector: 'bypass', llm: 'simple-bypass' },
    });
    const rubric = await made('/api/rubrics', RUBRIC_CONTENT);
    const cases: Array<[string, string, string, unknown, string]> = [
      ['an empty edit', 'PATCH', `/api/templates/${template.id}`, {}, ''],
      ['a kind change', 'PATCH', `/api/templates/${template.id}`, { kind: 'rubric' }, 'kind'],
      ['a name of the wrong type', 'PATCH', `/api/templates/${template.id}`, { name: 7 }, 'name'],
      ['an id that is not a number', 'GET', '/api/templates/abc', undefined, 'id'],
      ['an id past the integer range', 'DELETE', '/api/templates/99999999999', undefined, 'id'],
      ['a duplicate of a negative id', 'POST', '/api/templates/-1/duplicate', undefined, 'id'],
      ['an unknown kind filter', 'GET', '/api/templates?kind=assistant', undefined, 'kind'],
      ['a tag filter of markup', 'GET', '/api/templates?tag=%3Cb%3E', undefined, 'tag'],
      ['a search too long', 'GET', `/api/templates?q=${'a'.repeat(201)}`, undefined, 'q'],
      ['a save naming content', 'POST', `/api/assistants/${assistant.id}/save-as-template`, { system_prompt: 'x' }, 'system_prompt'],
      [
        'a save with a system visibility by a creator',
        'POST',
        `/api/rubrics/${rubric.rubricId}/save-as-template`,
        { visibility: 'system' },
        'visibility',
      ],
      ['a save of a hostile rubric id', 'POST', '/api/rubrics/..%2F..%2Fetc/save-as-template', {}, 'rubricId'],
    ];
    const problems: string[] = [];
    for (const [label, method, path, body, param] of cases) {
      const response = await request(server, method, path, { token: teacher, body });
      const expectedStatus = param === 'visibility' ? 403 : 400;
      const named = param === '' || response.body?.error?.param === param;
      if (response.status !== expectedStatus || !named) problems.push(`${label}: ${response.status} ${response.text.slice(0, 200)}`);
    }
    expect(problems).toEqual([]);
  });

  it('makes 50 distinct templates from 50 creates, duplicates and saves sent at once, each audited', async () => {
    const source = await made('/api/templates', { ...PROMPT, name: 'Source' });
    const assistant = await made('/api/assistants', {
      name: 'Coach',
      system_prompt: 'Hi',
      metadata: { connector: 'bypass', llm: 'simple-bypass' },
    });
    const rubric = await made('/api/rubrics', RUBRIC_CONTENT);
    const paths: Array<[string, unknown]> = [
      ['/api/templates', { ...PROMPT, name: 'Concurrent' }],
      [`/api/templates/${source.id}/duplicate`, undefined],
      [`/api/assistants/${assistant.id}/save-as-template`, {}],
      [`/api/rubrics/${rubric.rubricId}/save-as-template`, {}],
    ];
    for (const [path, body] of paths) {
      const responses = await Promise.all(Array.from({ length: AT_ONCE }, () => request(server, 'POST', path, { token: teacher, body })));
      expect(
        responses.filter((response) => response.status !== 201).map((response) => response.text),
        path,
      ).toEqual([]);
      const ids = new Set(responses.map((response) => response.body.id as number));
      expect(ids.size, path).toBe(AT_ONCE);
      const audited = await Promise.all(
        [...ids].map((id) => request(server, 'GET', `/api/audit?target_type=template&target_id=${id}`, { token: adminToken })),
      );
      expect(audited.map((response) => response.body.items.length)).toEqual(Array.from({ length: AT_ONCE }, () => 1));
    }
    const listed = await request(server, 'GET', '/api/templates?q=concurrent&limit=100', { token: teacher });
    expect(listed.body.total).toBe(AT_ONCE);
  }, 120_000);

  it('answers 50 edits of one template sent at once, and 50 list reads', async () => {
    const template = await made('/api/templates', PROMPT);
    const edits = await Promise.all(
      Array.from({ length: AT_ONCE }, (_unused, index) =>
        request(server, 'PATCH', `/api/templates/${template.id}`, { token: teacher, body: { name: `Edit ${index}`, tags: [`t${index}`] } }),
      ),
    );
    expect(edits.filter((response) => response.status !== 200).map((response) => response.text)).toEqual([]);
    const after = await request(server, 'GET', `/api/templates/${template.id}`, { token: teacher });
    // Whichever edit landed last, its name and its tag are the ones kept, together.
    expect(after.body.tags).toEqual([`t${after.body.name.slice('Edit '.length)}`]);
    const reads = await Promise.all(
      Array.from({ length: AT_ONCE }, () => request(server, 'GET', '/api/templates?limit=5', { token: teacher })),
    );
    expect(new Set(reads.map((response) => response.status))).toEqual(new Set([200]));
  }, 120_000);

  it('deletes one template once when 50 deletes of it are sent at once', async () => {
    const template = await made('/api/templates', PROMPT);
    const deletes = await Promise.all(
      Array.from({ length: AT_ONCE }, () => request(server, 'DELETE', `/api/templates/${template.id}`, { token: teacher })),
    );
    const statuses = deletes.map((response) => response.status);
    expect(statuses.filter((status) => status === 204)).toHaveLength(1);
    expect(statuses.filter((status) => status !== 204 && status !== 404)).toEqual([]);
    const audit = await request(server, 'GET', `/api/audit?target_type=template&target_id=${template.id}&action=template.delete`, {
      token: adminToken,
    });
    expect(audit.body.items).toHaveLength(1);
  }, 120_000);
});
