/**
 * The chat page's versions, edits, ratings and Try again, in headless Chromium (issue 29 item 5):
 * Regenerate leaves two versions of the answer with ‹ 1/2 › to move between them; an edited
 * question gets its own branch and answer while the earlier branch stays one click away; a thumb
 * down with a comment is kept, readable by the assistant's owner through the API (where the
 * organization allows it) and never by another learner; a failed answer offers Try again and
 * says what failed in the reader's language. The pages have no serious or critical axe
 * violation at 1280 and 375 px.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, screenshot } from './support/browser.js';
import { chatPageSuite, keptChatPath, sendMessage, signedInPage } from './support/chat-pages.js';
import { createUser, request } from './support/test-server.js';

const answers = (page: Page) => page.locator('li.assistant .markdown');

async function expectAccessibleAtBothWidths(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await expectAccessible(page);
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize({ width: 375, height: 812 });
  await expectAccessible(page);
  await screenshot(page, `${name}-375`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('answer versions, edited questions, feedback and Try again', () => {
  const suite = chatPageSuite();

  it('keeps two versions after Regenerate and moves between them with ‹ 1/2 ›', async () => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat/${suite.world.assistantId}`);
    suite.world.provider.enqueue({ text: 'The first answer.' });
    await sendMessage(page, 'What is a cell?');
    await answers(page).getByText('The first answer.').waitFor();
    suite.world.provider.enqueue({ chunks: ['The second ', 'answer.'] });
    await page.getByRole('button', { name: 'Regenerate' }).click();
    await answers(page).getByText('The second answer.').waitFor();
    const versions = page.getByRole('group', { name: /^Version \d of 2$/ });
    await expect.poll(() => versions.getAttribute('aria-label')).toBe('Version 2 of 2');
    expect(await versions.innerText()).toContain('2/2');

    await page.getByRole('button', { name: 'Previous version' }).click();
    await answers(page).getByText('The first answer.').waitFor();
    await expect.poll(() => versions.getAttribute('aria-label')).toBe('Version 1 of 2');
    await expectAccessibleAtBothWidths(page, 'chat-answer-versions');
    await page.getByRole('button', { name: 'Next version' }).click();
    await answers(page).getByText('The second answer.').waitFor();
    // The version shown is the chat's: a reload shows the same one.
    await page.reload();
    await answers(page).getByText('The second answer.').waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('gives an edited question its own branch and keeps the earlier one reachable', async () => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat/${suite.world.assistantId}`);
    suite.world.provider.enqueue({ text: 'Answer about plants.' });
    await sendMessage(page, 'Tell me about plants.');
    await answers(page).getByText('Answer about plants.').waitFor();

    await page.getByRole('button', { name: 'Edit your question' }).click();
    const box = page.getByRole('textbox', { name: 'Your question' });
    await box.fill('Tell me about animal cells.');
    suite.world.provider.enqueue({ text: 'Answer about animal cells.' });
    await page.getByRole('button', { name: 'Save and send' }).click();
    await answers(page).getByText('Answer about animal cells.').waitFor();
    await page.locator('li.user').getByText('Tell me about animal cells.').waitFor();
    expect(await page.getByText('Answer about plants.').count()).toBe(0);
    const questionVersions = page.locator('li.user').getByRole('group', { name: /^Version \d of 2$/ });
    await expect.poll(() => questionVersions.getAttribute('aria-label')).toBe('Version 2 of 2');
    await expectAccessibleAtBothWidths(page, 'chat-edited-question');

    await page.locator('li.user').getByRole('button', { name: 'Previous version' }).click();
    await answers(page).getByText('Answer about plants.').waitFor();
    await page.locator('li.user').getByText('Tell me about plants.').waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('keeps a thumb down with its comment, for the owner to read through the API and no other learner', async () => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat/${suite.world.assistantId}`);
    suite.world.provider.enqueue({ text: 'Cells are small.' });
    await sendMessage(page, 'How big is a cell?');
    await answers(page).getByText('Cells are small.').waitFor();
    const chatPath = await keptChatPath(page, suite.world.assistantId);
    const chatId = Number(chatPath.split('/').at(-1));

    await page.getByRole('button', { name: 'Not helpful' }).click();
    await page.getByRole('textbox', { name: 'What could be better? (optional)' }).fill('Give a size in micrometres.');
    await page.getByRole('button', { name: 'Send feedback' }).click();
    await page.getByText('Thank you for your feedback.').waitFor();
    expect(await page.getByRole('button', { name: 'Not helpful' }).getAttribute('aria-pressed')).toBe('true');
    await expectAccessibleAtBothWidths(page, 'chat-answer-feedback');

    const organizationId = (await request(suite.world.server, 'GET', '/api/me', { token: suite.world.adminToken })).body.organization_id;
    await request(suite.world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: suite.world.adminToken,
      body: { owners_can_read_chats: true },
    });
    const owners = await request(suite.world.server, 'GET', `/api/assistants/${suite.world.assistantId}/feedback`, {
      token: suite.world.adminToken,
    });
    expect(owners.body.items).toContainEqual(
      expect.objectContaining({ chat_id: chatId, rating: 'down', comment: 'Give a size in micrometres.' }),
    );
    const otherLearner = await createUser(suite.world.server, suite.world.adminToken, { email: 'nosy@merino.test', role: 'learner' });
    const refused = await request(suite.world.server, 'GET', `/api/assistants/${suite.world.assistantId}/feedback`, {
      token: otherLearner.token,
    });
    expect(refused.status).toBe(404);
    expect(refused.text).not.toContain('micrometres');
    expect((await request(suite.world.server, 'GET', `/api/chats/${chatId}`, { token: otherLearner.token })).status).toBe(404);
    await request(suite.world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: suite.world.adminToken,
      body: { owners_can_read_chats: false },
    });

    // The rating is the answer's: a reload shows it pressed.
    await page.reload();
    await answers(page).getByText('Cells are small.').waitFor();
    expect(await page.getByRole('button', { name: 'Not helpful' }).getAttribute('aria-pressed')).toBe('true');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('offers Try again on a failed answer, and says what failed in the reader’s language', async () => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat/${suite.world.assistantId}`);
    suite.world.provider.enqueue({ status: 500, errorMessage: 'The fake model is down.' });
    await sendMessage(page, 'Why is the sky blue?');
    const alert = page.locator('ol[aria-label="Conversation"]').getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('The model did not answer.');
    await expectAccessibleAtBothWidths(page, 'chat-try-again');

    suite.world.provider.enqueue({ text: 'Because of Rayleigh scattering.' });
    await page.getByRole('button', { name: 'Try again' }).click();
    await answers(page).getByText('Because of Rayleigh scattering.').waitFor();
    expect(await alert.count()).toBe(0);

    await context.addCookies([{ name: 'merino_locale', value: 'es', url: suite.world.server.baseUrl }]);
    await page.reload();
    await answers(page).getByText('Because of Rayleigh scattering.').waitFor();
    suite.world.provider.enqueue({ status: 500, errorMessage: 'The fake model is down.' });
    const box = page.getByRole('textbox', { name: 'Mensaje' });
    await box.fill('¿Y el atardecer?');
    await box.press('Enter');
    // The conversation's list is named in Spanish now.
    const spanishAlert = page.locator('ol[aria-label="Conversación"]').getByRole('alert');
    await spanishAlert.waitFor();
    expect(await spanishAlert.innerText()).toContain('El modelo no respondió.');
    await page.getByRole('button', { name: 'Reintentar' }).waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
