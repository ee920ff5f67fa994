/**
 * Proves in a real Chromium that the case editor writes what a teacher needs: a multi-turn case
 * with a phrase, a cited source chosen from the assistant's own file, a tool chosen from its tools
 * and a judged criterion. An empty phrase list is refused by the API and the message appears at
 * that field, with focus moved there; a source not yet chosen is said at its field. The case is then edited (renamed, a tool-round limit added),
 * run, and its failing judged expectation is shown with the judge's reason while the others pass.
 * The editor is reached and filled with the keyboard, and passes axe-core.
 */
import { describe, expect, it } from 'vitest';
import { assistantTestsPageSuite, ownersTestsPage } from './support/assistant-tests-page.js';
import { expectAccessible, screenshot } from './support/browser.js';
import { request } from './support/test-server.js';

describe('the test case editor', () => {
  const world = assistantTestsPageSuite();

  it('writes a case with several expectation types, shows a refused field where it is, edits the case, runs it and shows the failing reason', async () => {
    const { page, pageErrors } = await ownersTestsPage(world);

    // The keyboard: Enter on "New test case" opens the editor with focus in its first field.
    await page.getByRole('button', { name: 'New test case' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe(await page.getByLabel('Name').getAttribute('id'));
    await page.keyboard.type('Lists and cites');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Hello, what do we study?');
    await page.getByLabel('Kind').selectOption('multi_turn');
    await page.getByRole('button', { name: 'Add a learner message' }).click();
    await page.getByLabel("Learner's message 2").fill('Which documents are there? list please');

    // Expectation 1 left without phrases: the API refuses, the editor shows it at that field.
    await page.getByRole('button', { name: 'Save test case' }).click();
    const phrases = page.getByRole('group', { name: 'Expectation 1' }).getByLabel('Phrases');
    await expect.poll(() => phrases.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('group', { name: 'Expectation 1' }).getByRole('alert').innerText()).toMatch(/phrases.*fewer than 1/);
    await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe(await phrases.getAttribute('id'));
    await phrases.fill('mitosis');

    await page.getByRole('button', { name: 'Add an expectation' }).click();
    const second = page.getByRole('group', { name: 'Expectation 2' });
    await second.getByLabel('The answer…').selectOption('cites_source');
    // No source chosen yet: the editor says so at that field before sending anything.
    await page.getByRole('button', { name: 'Save test case' }).click();
    await expect.poll(() => second.getByLabel('Source').getAttribute('aria-invalid')).toBe('true');
    expect(await second.getByRole('alert').innerText()).toBe('Choose a source.');
    await second.getByLabel('Source').selectOption({ label: 'cells.md' });
    await page.getByRole('button', { name: 'Add an expectation' }).click();
    const third = page.getByRole('group', { name: 'Expectation 3' });
    await third.getByLabel('The answer…').selectOption('calls_tool');
    await third.getByLabel('Tool').selectOption('list_documents');
    await page.getByRole('button', { name: 'Add an expectation' }).click();
    const fourth = page.getByRole('group', { name: 'Expectation 4' });
    await fourth.getByLabel('The answer…').selectOption('judged');
    await fourth.getByLabel('Criterion').fill('[judge:fail] Explains which documents exist.');
    await expectAccessible(page);
    await screenshot(page, 'assistant-test-case-editor');
    await page.getByRole('button', { name: 'Save test case' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Edit Lists and cites' }).count()).toBe(1);
    expect(await page.getByText('Cites cells.md (Files)').count()).toBe(1);

    await page.getByRole('button', { name: 'Edit Lists and cites' }).click();
    await page.getByLabel('Name').fill('Lists, cites and is judged');
    await page.getByRole('button', { name: 'Add an expectation' }).click();
    const fifth = page.getByRole('group', { name: 'Expectation 5' });
    await fifth.getByLabel('The answer…').selectOption('max_tool_rounds');
    await fifth.getByLabel('Most tool rounds').fill('3');
    await page.getByRole('button', { name: 'Save test case' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Edit Lists, cites and is judged' }).count()).toBe(1);
    const stored = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/tests`, { token: world.owner.token });
    expect(stored.body.items).toHaveLength(1);
    expect(stored.body.items[0]).toMatchObject({
      name: 'Lists, cites and is judged',
      kind: 'multi_turn',
      turns: ['Hello, what do we study?', 'Which documents are there? list please'],
      expectations: [
        { type: 'contains', phrases: ['mitosis'] },
        { type: 'cites_source', file_path: world.filePath },
        { type: 'calls_tool', tool: 'list_documents' },
        { type: 'judged', criterion: '[judge:fail] Explains which documents exist.' },
        { type: 'max_tool_rounds', rounds: 3 },
      ],
    });

    await page.getByRole('button', { name: 'Run tests' }).click();
    const row = page.getByRole('table', { name: 'Test results' }).getByRole('row', { name: /Lists, cites and is judged/ });
    await expect.poll(() => row.innerText()).toContain('fail');
    await row.getByText('Details').click();
    const details = await row.innerText();
    expect(details).toMatch(/fail: Judged: \[judge:fail\] Explains which documents exist\.[\s\S]*judged fail/);
    expect(details).toContain('pass: Contains “mitosis”');
    expect(details).toContain(`pass: Cites ${world.filePath}`);
    expect(details).toContain('pass: Calls list_documents');
    expect(details).toContain('list_documents');
    await screenshot(page, 'assistant-test-result-details');
    await expectAccessible(page);
    expect(pageErrors).toEqual([]);
  });
});
