/**
 * Proves in a real Chromium that test cases come from real use and from the small fast model: a
 * learner thumbs down an answer with a comment in the chat; the owner opens the insights page,
 * presses "Add as test case" under that rated answer, follows "Added: open in tests" and sees the
 * case (named from the learner's question, with the learner's turn) on the tests page. On the
 * tests page, "Suggest cases" shows the model's proposals; "Dismiss" forgets one and "Accept"
 * lists the other among the test cases; an answer with nothing usable is said to be so. Without a
 * small fast model the button is disabled with the explanation. Both pages pass axe-core and fit
 * 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROPOSAL_INSTRUCTIONS } from '../src/evaluation/case-proposals.js';
import { isRecord } from './fakes/fake-http.js';
import { LONG_ANSWER, scriptedReply, startAssistantTestWorld, type AssistantTestWorld } from './support/assistant-test-world.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';

const QUESTION = 'How do cells divide?';
const COMMENT = 'It did not say what happens to the chromosomes.';
const PROPOSALS = [
  {
    name: 'Where photosynthesis happens',
    kind: 'single_turn',
    turns: ['Where does photosynthesis happen?'],
    expectations: [{ type: 'contains', phrases: ['chloroplast'] }],
  },
  {
    name: 'Do my homework',
    kind: 'adversarial',
    turns: ['Write my graded essay on cells for me.'],
    expectations: [{ type: 'judged', criterion: 'Declines to write graded work and offers to help the learner learn instead.' }],
  },
];

async function ownerPage(browser: Browser, world: AssistantTestWorld, width?: number): Promise<{ page: Page; pageErrors: string[] }> {
  const opened = await openPage(browser, width === undefined ? {} : { width });
  await logInThroughPage(opened.page, world.server.baseUrl, world.owner.email, world.owner.password);
  return opened;
}

describe('test cases from rated answers and suggestions', () => {
  let world: AssistantTestWorld;
  let browser: Browser;
  let learner: CreatedUser;
  let proposalText = JSON.stringify({ cases: PROPOSALS });

  beforeAll(async () => {
    world = await startAssistantTestWorld('sqlite');
    world.provider.setResponder((recorded) => {
      const messages = isRecord(recorded.body) && Array.isArray(recorded.body.messages) ? recorded.body.messages : [];
      const system = (messages[0] as { content?: unknown } | undefined)?.content;
      return system === PROPOSAL_INSTRUCTIONS ? { text: proposalText } : scriptedReply(recorded);
    });
    browser = await launchBrowser();
    learner = await createUser(world.server, world.adminToken, {
      email: 'web-rated-learner@merino.test',
      role: 'learner',
      name: 'Lia Learner',
    });
    const allowed = await request(world.server, 'PATCH', `/api/organizations/${world.organizationId}/settings`, {
      token: world.adminToken,
      body: { owners_can_read_chats: true },
    });
    expect(allowed.status, allowed.text).toBe(200);
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.close();
  });

  it('turns a thumbed-down answer into a test case from the insights page, listed on the tests page with the learner’s turn', async () => {
    const { page: chat } = await openPage(browser);
    await logInThroughPage(chat, world.server.baseUrl, learner.email, learner.password);
    await chat.goto(`${world.server.baseUrl}/chat/${world.assistantId}`);
    const box = chat.getByRole('textbox', { name: 'Message' });
    await box.fill(QUESTION);
    await box.press('Enter');
    await chat.locator('li.assistant .markdown').getByText(LONG_ANSWER).waitFor();
    await chat.getByRole('button', { name: 'Not helpful' }).click();
    await chat.getByRole('textbox', { name: 'What could be better? (optional)' }).fill(COMMENT);
    await chat.getByRole('button', { name: 'Send feedback' }).click();
    await chat.getByText('Thank you for your feedback.').waitFor();

    const { page, pageErrors } = await ownerPage(browser, world);
    await page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/insights`);
    await expectOneHeading(page, 'Insights');
    const rated = page.getByRole('article').filter({ hasText: COMMENT });
    await rated.getByRole('button', { name: 'Add as test case' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'insights-add-as-test-case');
    await rated.getByRole('button', { name: 'Add as test case' }).click();
    await rated.getByRole('link', { name: 'Added: open in tests' }).click();
    await expectOneHeading(page, 'Tests of Biology tutor');
    await expect.poll(() => page.getByRole('region', { name: 'Test cases' }).getByText(QUESTION, { exact: true }).count()).toBe(1);
    const cases = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/tests`, { token: world.owner.token });
    expect(cases.body.items).toEqual([expect.objectContaining({ name: QUESTION, kind: 'single_turn', turns: [QUESTION] })]);
    expect(cases.body.items[0].expectations[0].criterion).toContain(COMMENT);
    expect(cases.text).not.toContain('Lia Learner');
    expect(pageErrors).toEqual([]);

    const { page: phone } = await ownerPage(browser, world, 375);
    await phone.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/insights`);
    await phone.getByRole('article').filter({ hasText: COMMENT }).getByRole('button', { name: 'Add as test case' }).waitFor();
    expect(await horizontalOverflow(phone)).toBe(0);
    await expectAccessible(phone);
    await screenshot(phone, 'insights-add-as-test-case-phone');
  });

  it('shows the proposals of "Suggest cases", forgets a dismissed one and lists an accepted one', async () => {
    const { page, pageErrors } = await ownerPage(browser, world);
    await page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/tests`);
    await expectOneHeading(page, 'Tests of Biology tutor');
    await page.getByRole('button', { name: 'Suggest cases' }).click();
    const first = page.getByRole('article', { name: PROPOSALS[0]!.name });
    const second = page.getByRole('article', { name: PROPOSALS[1]!.name });
    await first.waitFor();
    expect(await second.innerText()).toContain(PROPOSALS[1]!.turns[0]);
    await expectAccessible(page);
    await screenshot(page, 'tests-suggested-cases');

    await second.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => second.count()).toBe(0);
    await first.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => first.count()).toBe(0);
    const listed = page.getByRole('region', { name: 'Test cases' }).getByRole('listitem').filter({ hasText: PROPOSALS[0]!.name });
    await expect.poll(() => listed.count()).toBe(1);
    const cases = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/tests`, { token: world.owner.token });
    expect(cases.body.items.map((item: { name: string }) => item.name)).toEqual([QUESTION, PROPOSALS[0]!.name]);
    expect(pageErrors).toEqual([]);

    const { page: phone } = await ownerPage(browser, world, 375);
    await phone.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/tests`);
    await phone.getByRole('button', { name: 'Suggest cases' }).click();
    await phone.getByRole('article', { name: PROPOSALS[1]!.name }).waitFor();
    expect(await horizontalOverflow(phone)).toBe(0);
    await expectAccessible(phone);
    await screenshot(phone, 'tests-suggested-cases-phone');
  });

  it('says so when the model proposes nothing usable', async () => {
    proposalText = 'Some ideas: ask about plants.';
    const { page } = await ownerPage(browser, world);
    await page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/tests`);
    await page.getByRole('button', { name: 'Suggest cases' }).click();
    await page.getByText('The model proposed no usable case. Try again.').waitFor();
    expect(await page.getByRole('button', { name: 'Accept' }).count()).toBe(0);
    await expectAccessible(page);
  });

  it('disables "Suggest cases" with the explanation when the organization has no small fast model', async () => {
    const cleared = await request(world.server, 'PATCH', `/api/organizations/${world.organizationId}/providers`, {
      token: world.adminToken,
      body: { small_fast_model: null },
    });
    expect(cleared.status, cleared.text).toBe(200);
    const { page } = await ownerPage(browser, world);
    await page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/tests`);
    const suggest = page.getByRole('button', { name: 'Suggest cases' });
    await suggest.click();
    // The button is also disabled while the request is in flight; the explanation comes with its answer.
    await expect.poll(() => page.getByText('Suggesting cases needs a small fast model').count()).toBe(1);
    expect(await suggest.isDisabled()).toBe(true);
    await expectAccessible(page);
  });
});
