/**
 * Proves in a real Chromium that a classic assistant's rubric and file pickers on its edit page
 * show names (never ids) and store what the server needs: a rubric picked by its title saves its
 * rubricId and format, then a file picked by its name saves its file_path, and each save keeps
 * only the chosen rag_processor's settings. A save shows "Saved" and the new name as the heading.
 */
import { describe, expect, it } from 'vitest';
import { request } from './support/test-server.js';
import { creatorsPage, creatorStudioSuite } from './support/studio-suite.js';
import { waitForHeading } from './support/page-checks.js';

describe('the rubric and file pickers of a classic assistant', () => {
  const studio = creatorStudioSuite('grader@school.test');

  it('picks a rubric and then a file by name on the edit page, and each save keeps only the chosen settings', async () => {
    const level = (score: number) => ({ score, label: `Level ${score}`, description: `Work at level ${score}` });
    const rubric = await request(studio.server, 'POST', '/api/rubrics', {
      token: studio.creator.token,
      body: {
        title: 'Lab report rubric',
        description: 'Science lab reports',
        criteria: [{ name: 'Method', description: 'How the experiment was run', weight: 100, levels: [level(2), level(1)] }],
        scoringType: 'points',
        maxScore: 2,
      },
    });
    expect(rubric.status).toBe(201);
    const form = new FormData();
    form.append('file', new Blob(['# Syllabus\n\nWeek one: cells.'], { type: 'text/markdown' }), 'syllabus.md');
    const uploaded = await fetch(`${studio.server.baseUrl}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${studio.creator.token}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as { file_path: string };
    const created = await request(studio.server, 'POST', '/api/assistants', { token: studio.creator.token, body: { name: 'Grader' } });

    const { context, page, pageErrors } = await creatorsPage(studio);
    await page.goto(`${studio.server.baseUrl}/assistants/${created.body.id}`);
    await page.getByRole('combobox', { name: 'Knowledge source' }).selectOption('rubric_rag');
    const rubricPicker = page.getByRole('combobox', { name: 'Rubric', exact: true });
    expect(await rubricPicker.locator('option').allInnerTexts()).toEqual(['Choose…', 'Lab report rubric']);
    await rubricPicker.selectOption({ label: 'Lab report rubric' });
    await page.getByRole('combobox', { name: 'Rubric format' }).selectOption('json');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Lab grader');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await waitForHeading(page, 'Lab grader');
    expect(await page.getByRole('status').allInnerTexts()).toContain('Saved');
    const withRubric = await request(studio.server, 'GET', `/api/assistants/${created.body.id}`, { token: studio.creator.token });
    expect(withRubric.body.metadata).toMatchObject({ rag_processor: 'rubric_rag', rubric_id: rubric.body.rubricId, rubric_format: 'json' });

    await page.getByRole('combobox', { name: 'Knowledge source' }).selectOption('single_file_rag');
    const filePicker = page.getByRole('combobox', { name: 'File', exact: true });
    expect(await filePicker.locator('option').allInnerTexts()).toEqual(['Choose…', 'syllabus.md']);
    await filePicker.selectOption({ label: 'syllabus.md' });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(
        async () =>
          (await request(studio.server, 'GET', `/api/assistants/${created.body.id}`, { token: studio.creator.token })).body.metadata,
      )
      .toMatchObject({ rag_processor: 'single_file_rag', file_path: file.file_path });
    const withFile = await request(studio.server, 'GET', `/api/assistants/${created.body.id}`, { token: studio.creator.token });
    expect(withFile.body.metadata.rubric_id).toBeUndefined();
    expect(withFile.body.metadata.rubric_format).toBeUndefined();
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
