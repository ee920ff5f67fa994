/**
 * The template library's behaviour over real HTTP on both stores (docs/templates.md): the list's
 * filters (kind, visibility, tag, language, text), a duplicate is the caller's own personal copy
 * with the same content, "save as template" copies an assistant's prompts and a rubric's content
 * (which then makes a new rubric as it is), edits keep the kind and check content by kind, and
 * every create, edit and delete leaves its audit entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { RUBRIC_CONTENT } from './support/template-bodies.js';

describe.each(TEST_DIALECTS)('the template library on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let teacher: string;
  let colleague: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    teacher = (await createUser(server, adminToken, { email: 'teacher@merino.test', role: 'creator' })).token;
    colleague = (await createUser(server, adminToken, { email: 'colleague@merino.test', role: 'creator' })).token;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  async function create(token: string, body: Record<string, unknown>): Promise<Record<string, any>> {
    const response = await request(server, 'POST', '/api/templates', { token, body });
    expect(response.status, response.text).toBe(201);
    return response.body;
  }

  async function listedNames(token: string, query: string): Promise<string[]> {
    const response = await request(server, 'GET', `/api/templates?limit=200&${query}`, { token });
    expect(response.status, response.text).toBe(200);
    return (response.body.items as Array<{ name: string }>).map((item) => item.name).sort();
  }

  it('filters the list by kind, visibility, tag, language and text', async () => {
    await create(teacher, {
      kind: 'prompt',
      name: 'Filter Socratic',
      description: 'asks questions back',
      tags: ['Biology', 'socratic  ', 'biology'],
      language: 'en',
      system_prompt: 'Ask.',
    });
    await create(teacher, {
      kind: 'prompt',
      name: 'Filter Tutor ES',
      tags: ['biology'],
      language: 'es',
      visibility: 'organization',
      prompt_template: 'Pregunta: {user_input}',
    });
    await create(teacher, { kind: 'rubric', name: 'Filter Essay rubric', tags: ['writing'], language: 'en', rubric: RUBRIC_CONTENT });
    expect(await listedNames(teacher, 'q=filter&kind=rubric')).toEqual(['Filter Essay rubric']);
    expect(await listedNames(teacher, 'q=filter&kind=prompt')).toEqual(['Filter Socratic', 'Filter Tutor ES']);
    expect(await listedNames(teacher, 'q=filter&visibility=organization')).toEqual(['Filter Tutor ES']);
    expect(await listedNames(teacher, 'q=filter&tag=BIOLOGY')).toEqual(['Filter Socratic', 'Filter Tutor ES']);
    expect(await listedNames(teacher, 'q=filter&tag=socratic')).toEqual(['Filter Socratic']);
    expect(await listedNames(teacher, 'q=filter&language=es')).toEqual(['Filter Tutor ES']);
    expect(await listedNames(teacher, 'q=QUESTIONS BACK')).toEqual(['Filter Socratic']);
    expect(await listedNames(teacher, 'q=filter&tag=biology&language=en')).toEqual(['Filter Socratic']);
    // Tags are searched too, and the colleague sees only the shared one.
    expect(await listedNames(colleague, 'q=biology')).toEqual(['Filter Tutor ES']);
    const [socratic] = (await request(server, 'GET', '/api/templates?q=filter%20socratic', { token: teacher })).body.items;
    expect(socratic).toMatchObject({ tags: ['biology', 'socratic'], language: 'en', visibility: 'personal', is_mine: true });
    expect(socratic.system_prompt).toBeUndefined();
  });

  it("duplicates a colleague's shared template into the caller's own personal copy, leaving the original as it was", async () => {
    const shared = await create(colleague, {
      kind: 'prompt',
      name: 'Lab safety',
      tags: ['chemistry'],
      language: 'ca',
      visibility: 'organization',
      system_prompt: 'Safety first.',
      prompt_template: 'Q: {user_input}',
    });
    const copied = await request(server, 'POST', `/api/templates/${shared.id}/duplicate`, { token: teacher });
    expect(copied.status, copied.text).toBe(201);
    expect(copied.body).toMatchObject({
      kind: 'prompt',
      name: 'Lab safety (copy)',
      tags: ['chemistry'],
      language: 'ca',
      visibility: 'personal',
      owner: 'teacher@merino.test',
      is_mine: true,
      allowed_actions: ['read', 'duplicate', 'update', 'delete'],
      system_prompt: 'Safety first.',
      prompt_template: 'Q: {user_input}',
    });
    expect(copied.body.id).not.toBe(shared.id);
    const renamed = await request(server, 'PATCH', `/api/templates/${copied.body.id}`, {
      token: teacher,
      body: { name: 'My lab safety', system_prompt: 'Safety always.' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const original = await request(server, 'GET', `/api/templates/${shared.id}`, { token: colleague });
    expect(original.body).toMatchObject({ name: 'Lab safety', system_prompt: 'Safety first.', visibility: 'organization' });
    // The colleague never sees the teacher's copy.
    expect((await request(server, 'GET', `/api/templates/${copied.body.id}`, { token: colleague })).status).toBe(404);
  });

  it("saves an assistant's prompts as a prompt template, named after it unless told otherwise", async () => {
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: teacher,
      body: {
        name: 'Photosynthesis coach',
        description: 'Grade 9 biology',
        system_prompt: 'Guide, never give answers.',
        prompt_template: 'Context: {context}\n{user_input}',
        metadata: { connector: 'bypass', llm: 'simple-bypass' },
      },
    });
    expect(assistant.status, assistant.text).toBe(201);
    const saved = await request(server, 'POST', `/api/assistants/${assistant.body.id}/save-as-template`, {
      token: teacher,
      body: { tags: ['biology'], language: 'en' },
    });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({
      kind: 'prompt',
      name: 'Photosynthesis coach',
      description: 'Grade 9 biology',
      tags: ['biology'],
      visibility: 'personal',
      system_prompt: 'Guide, never give answers.',
      prompt_template: 'Context: {context}\n{user_input}',
    });
    const named = await request(server, 'POST', `/api/assistants/${assistant.body.id}/save-as-template`, {
      token: teacher,
      body: { name: 'Coach for the department', visibility: 'organization' },
    });
    expect(named.body).toMatchObject({ name: 'Coach for the department', visibility: 'organization' });
  });

  it("saves a rubric's content as a rubric template, which makes a new rubric as it is", async () => {
    const rubric = await request(server, 'POST', '/api/rubrics', {
      token: teacher,
      body: { ...RUBRIC_CONTENT, description: 'For argumentative essays', metadata: { subject: 'English' } },
    });
    expect(rubric.status, rubric.text).toBe(201);
    const saved = await request(server, 'POST', `/api/rubrics/${rubric.body.rubricId}/save-as-template`, { token: teacher, body: {} });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ kind: 'rubric', name: 'Essay', description: 'For argumentative essays' });
    expect(saved.body.rubric.rubricId).toBeUndefined();
    expect(saved.body.rubric.metadata).toEqual({ subject: 'English' });
    expect(saved.body.rubric.criteria[0].levels.map((level: { label: string }) => level.label)).toEqual(['Clear', 'Unclear']);
    const fromTemplate = await request(server, 'POST', '/api/rubrics', { token: teacher, body: saved.body.rubric });
    expect(fromTemplate.status, fromTemplate.text).toBe(201);
    expect(fromTemplate.body.rubricId).not.toBe(rubric.body.rubricId);
    expect(fromTemplate.body.criteria).toEqual(rubric.body.criteria);
  });

  it('keeps a template of its kind on edit: the kind is immutable and content fields must be the kind’s', async () => {
    const rubricTemplate = await create(teacher, { kind: 'rubric', name: 'Kind kept', rubric: RUBRIC_CONTENT });
    const kindChange = await request(server, 'PATCH', `/api/templates/${rubricTemplate.id}`, { token: teacher, body: { kind: 'prompt' } });
    expect(kindChange.status).toBe(400);
    expect(kindChange.body.error).toMatchObject({ code: 'immutable_field', param: 'kind' });
    const promptField = await request(server, 'PATCH', `/api/templates/${rubricTemplate.id}`, {
      token: teacher,
      body: { system_prompt: 'x' },
    });
    expect(promptField.status).toBe(400);
    expect(promptField.body.error.param).toBe('system_prompt');
    const retitled = await request(server, 'PATCH', `/api/templates/${rubricTemplate.id}`, {
      token: teacher,
      body: { rubric: { ...RUBRIC_CONTENT, title: 'Essay v2' }, tags: [] },
    });
    expect(retitled.status, retitled.text).toBe(200);
    expect(retitled.body.rubric.title).toBe('Essay v2');
  });

  it("takes a moved teacher's templates along: a shared one becomes personal, unseen by the old colleagues", async () => {
    const mover = await createUser(server, adminToken, { email: 'mover@merino.test', role: 'creator' });
    const shared = await create(mover.token, { kind: 'prompt', name: 'Moving shared', visibility: 'organization', system_prompt: 'x' });
    const elsewhere = await request(server, 'POST', '/api/organizations', {
      token: adminToken,
      body: { name: 'Elsewhere', slug: 'elsewhere' },
    });
    expect(elsewhere.status, elsewhere.text).toBe(201);
    const moved = await request(server, 'PATCH', `/api/users/${mover.id}`, {
      token: adminToken,
      body: { organization_id: elsewhere.body.id },
    });
    expect(moved.status, moved.text).toBe(200);
    expect((await request(server, 'GET', `/api/templates/${shared.id}`, { token: colleague })).status).toBe(404);
    const kept = await request(server, 'GET', `/api/templates/${shared.id}`, { token: mover.token });
    expect(kept.body).toMatchObject({ visibility: 'personal', organization_id: elsewhere.body.id, is_mine: true });
  });

  it('records an audit entry for every create, edit and delete, with no content in it', async () => {
    const template = await create(teacher, { kind: 'prompt', name: 'Audited', system_prompt: 'A secret-ish prompt' });
    await request(server, 'PATCH', `/api/templates/${template.id}`, { token: teacher, body: { name: 'Audited again' } });
    await request(server, 'DELETE', `/api/templates/${template.id}`, { token: teacher });
    const audit = await request(server, 'GET', `/api/audit?target_type=template&target_id=${template.id}&limit=50`, { token: adminToken });
    expect(audit.status, audit.text).toBe(200);
    const actions = (audit.body.items as Array<{ action: string }>).map((entry) => entry.action).sort();
    expect(actions).toEqual(['template.create', 'template.delete', 'template.update']);
    expect(audit.text).not.toContain('secret-ish');
    expect((await request(server, 'GET', `/api/templates/${template.id}`, { token: teacher })).status).toBe(404);
  });
});
