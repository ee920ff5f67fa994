/**
 * Two real server processes on PostgreSQL behind a load balancer: a learner's answer starts on
 * process A; the balancer then sends everything to process B (A is taken out of the rotation, as
 * in a rolling restart), the learner reloads, and the page shows the answer continuing and then
 * complete, read by B from the shared store while A still produces it. And when the process
 * producing an answer is killed, the reloaded page shows what had arrived with a plain notice.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastContentGate } from './fakes/fake-openai-server.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { sendMessage, keptChatPath } from './support/chat-pages.js';
import { ASSISTANT_NAME, startChatProcesses, type ChatProcesses } from './support/chat-processes.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './support/round-robin-proxy.js';
import type { ServerProcess } from './support/server-process.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const PIECES = Array.from({ length: 40 }, (_, index) => `word${index} `);
const WHOLE = PIECES.join('').trim();

describe.runIf(TEST_DIALECTS.includes('postgres'))('reloading mid-answer onto another process on postgres', () => {
  let world: ChatProcesses;
  let processA: ServerProcess;
  let processB: ServerProcess;
  let proxy: RoundRobinProxy;
  let browser: Browser;

  beforeAll(async () => {
    // A short lease, so the answer of the process the last test kills is known as cut off soon.
    world = await startChatProcesses('postgres', { CHAT_RUN_LEASE_MS: '2000' });
    processA = world.processes[0]!;
    processB = await world.startProcess();
    proxy = await startRoundRobinProxy([processA.baseUrl]);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(proxy)?.close();
    await possiblyUnset(world)?.close();
  });

  it('shows the answer A produces continuing on B after a reload, then complete', { timeout: 90_000 }, async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await logInThroughPage(page, proxy.baseUrl, world.learner.email, world.learner.password);
    await page.goto(`${proxy.baseUrl}/chat/${world.assistantId}`);
    // The last piece waits until the page has been seen mid-answer, however slow the machine.
    const { lastContentReleased, release: releaseLast } = lastContentGate();
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 150, lastContentReleased });
    await sendMessage(page, 'Tell me everything about cells.');
    const answer = page.locator('li.assistant .markdown');
    await expect.poll(async () => (await answer.textContent()) ?? '', { timeout: 10_000 }).toContain('word2');
    const path = await keptChatPath(page, world.assistantId);
    const chatId = path.split('/').at(-1);

    // From now on every request goes to B, while A goes on producing the answer.
    proxy.add(processB.baseUrl);
    proxy.remove(processA.baseUrl);
    const servedBeforeReload = proxy.served.length;
    await page.reload();
    await page.getByRole('heading', { level: 1, name: ASSISTANT_NAME }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 10_000 });
    await expect.poll(async () => (await answer.textContent()) ?? '', { timeout: 10_000 }).toContain('word');
    expect(((await answer.textContent()) ?? '').trim().length).toBeLessThan(WHOLE.length);
    await screenshot(page, 'i29-reload-on-another-process-continuing');
    releaseLast();

    await expect.poll(async () => ((await answer.textContent()) ?? '').trim(), { timeout: 30_000 }).toBe(WHOLE);
    await page.getByRole('button', { name: 'Send' }).waitFor();
    expect(await page.getByText('Stopped before the answer was complete.').count()).toBe(0);
    await screenshot(page, 'i29-reload-on-another-process-complete');

    // A produced it (its one question went there); B served the reload and the rejoin.
    const asked = proxy.served.filter((served) => served.method === 'POST' && served.path === `/api/chats/${chatId}/messages`);
    expect(asked.map((served) => served.upstream)).toEqual([processA.baseUrl]);
    const afterReload = proxy.served.slice(servedBeforeReload);
    expect(afterReload.some((served) => served.path.startsWith(`/api/chats/${chatId}/run`))).toBe(true);
    expect(new Set(afterReload.map((served) => served.upstream))).toEqual(new Set([processB.baseUrl]));
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows what had arrived, with a plain notice, when the process producing the answer is killed', { timeout: 120_000 }, async () => {
    const processC = await world.startProcess();
    const { page, context, pageErrors } = await openPage(browser);
    await logInThroughPage(page, proxy.baseUrl, world.learner.email, world.learner.password);
    await page.goto(`${proxy.baseUrl}/chat/${world.assistantId}`);
    // Ten pieces, then nothing until B is gone: the kill always comes mid-answer.
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 200, hangAfterChunks: 10 });
    await sendMessage(page, 'Tell me about membranes.');
    const answer = page.locator('li.assistant .markdown');
    await expect.poll(async () => (await answer.textContent()) ?? '', { timeout: 10_000 }).toContain('word3');
    await keptChatPath(page, world.assistantId);

    proxy.add(processC.baseUrl);
    proxy.remove(processB.baseUrl);
    await processB.kill();
    await page.reload();
    await page.getByText('The answer was cut off: the server writing it stopped.').waitFor({ timeout: 60_000 });
    const kept = ((await answer.textContent()) ?? '').trim();
    expect(kept.startsWith('word0 word1 word2')).toBe(true);
    expect(kept.length).toBeLessThan(WHOLE.length);
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'i29-answer-of-a-killed-process');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
