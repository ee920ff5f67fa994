/**
 * The server's own HTML pages for LTI: small, script-free documents (same-origin scripts only post
 * a deep-linking answer back, with a button for when scripts are off, and keep a login's secret in
 * the platform's storage) that work inside any LMS frame. Every value is escaped; the words come
 * from lti-page-text.ts.
 */
import type { ActivityDashboard, ActivityView } from '../../lti/lti-activity-schemas.js';
import type { AssistantChoice } from '../../lti/lti-activity-service.js';
import type { ReadableChatWithMessages } from '../../chats/chat-service.js';
import type { PlatformStorage } from '../../lti/lti-advantage-service.js';
import { pageText, type PageLocale, type PageText } from './lti-page-text.js';
import { PLATFORM_STORAGE_SCRIPT_PATH } from './lti-platform-storage-script.js';
import { LAUNCH_PATH } from './lti-state-cookie.js';

export const AUTO_SUBMIT_SCRIPT_PATH = '/lti/assets/auto-submit.js';

/** Submits the page's form marked for it; served as a file, since the policy allows no inline script. */
export const AUTO_SUBMIT_SCRIPT = "document.querySelector('form[data-auto-submit]')?.submit();\n";

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

const STYLE = `:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}
body{margin:0 auto;max-width:40rem;padding:1rem}
h1{font-size:1.5rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
select,button,a.button{font:inherit;padding:.5rem .75rem;min-height:2.75rem;max-width:100%}
button,a.button{margin-top:1rem;border-radius:.375rem;border:1px solid currentColor;background:Canvas;color:CanvasText;cursor:pointer;display:inline-block}
table{border-collapse:collapse;width:100%}
.said{white-space:pre-wrap;overflow-wrap:anywhere;margin:0 0 .5rem}
th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid GrayText}
dl{display:grid;grid-template-columns:auto auto;gap:.25rem 1rem}
dd{margin:0}`;

function page(locale: PageLocale, title: string, body: string, scriptPath?: string): string {
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Merino</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>${scriptPath === undefined ? '' : `\n<script src="${scriptPath}"></script>`}
</body>
</html>
`;
}

export function refusedLaunchPage(locale: PageLocale, explanation: string): string {
  const text = pageText(locale);
  return page(locale, text.refusedTitle, `<p>${escapeHtml(explanation)}</p>\n<p>${escapeHtml(text.refusedHint)}</p>`);
}

/** What both platform-storage pages tell their script: where the platform is, the key, and how long to wait. */
function storageAttributes(storage: PlatformStorage, waitMilliseconds: number, failed: string): string {
  return [
    ['target', storage.target],
    ['origin', storage.platformOrigin],
    ['key', storage.key],
    ['wait', String(waitMilliseconds)],
    ['failed', failed],
  ]
    .map(([name, value]) => ` data-lti-${name}="${escapeHtml(value ?? '')}"`)
    .join('');
}

export interface StoringPageContent {
  storage: PlatformStorage;
  secret: string;
  authorizationUrl: string;
  waitMilliseconds: number;
}

/** The login's answer when the platform offers its storage: keeps the secret there, then goes on to the platform (a link when scripts are off). */
export function platformStorageLoginPage(locale: PageLocale, content: StoringPageContent): string {
  const text = pageText(locale);
  const attributes = storageAttributes(content.storage, content.waitMilliseconds, text.checkFailed);
  return page(
    locale,
    text.signingInTitle,
    `<p id="lti-storage-status" data-lti-storage="put"${attributes} data-lti-value="${escapeHtml(content.secret)}" data-lti-next="${escapeHtml(content.authorizationUrl)}">${escapeHtml(text.storingBody)}</p>
<p><a href="${escapeHtml(content.authorizationUrl)}">${escapeHtml(text.continueLink)}</a></p>`,
    PLATFORM_STORAGE_SCRIPT_PATH,
  );
}

export interface CheckingPageContent {
  storage: PlatformStorage;
  idToken: string;
  state: string;
  waitMilliseconds: number;
}

/** The launch's answer when the browser brought no cookie: reads the secret back from the platform's storage and posts the launch again with it. */
export function platformStorageLaunchPage(locale: PageLocale, content: CheckingPageContent): string {
  const text = pageText(locale);
  const attributes = storageAttributes(content.storage, content.waitMilliseconds, text.checkFailed);
  return page(
    locale,
    text.signingInTitle,
    `<form method="post" action="${LAUNCH_PATH}" data-lti-storage="get"${attributes}>
<input type="hidden" name="id_token" value="${escapeHtml(content.idToken)}">
<input type="hidden" name="state" value="${escapeHtml(content.state)}">
<input type="hidden" name="platform_storage_secret" value="">
</form>
<p id="lti-storage-status" role="status">${escapeHtml(text.checkingBody)}</p>`,
    PLATFORM_STORAGE_SCRIPT_PATH,
  );
}

export function notSetUpPage(locale: PageLocale): string {
  const text = pageText(locale);
  return page(locale, text.notSetUpTitle, `<p>${escapeHtml(text.notSetUpBody)}</p>`);
}

function assistantSelect(text: PageText, choices: AssistantChoice[], selected: number | null): string {
  const options = choices
    .map((choice) => `<option value="${choice.id}"${choice.id === selected ? ' selected' : ''}>${escapeHtml(choice.name)}</option>`)
    .join('');
  return `<label for="assistant_id">${escapeHtml(text.assistantLabel)}</label>\n<select id="assistant_id" name="assistant_id" required>${options}</select>`;
}

export function setUpPage(locale: PageLocale, activity: ActivityView, choices: AssistantChoice[]): string {
  const text = pageText(locale);
  const form =
    choices.length === 0
      ? `<p>${escapeHtml(text.noAssistants)}</p>`
      : `<form method="post" action="/lti/activities/${activity.id}/setup">
${assistantSelect(text, choices, activity.assistant_id)}
<div><button type="submit">${escapeHtml(text.useAssistant)}</button></div>
</form>`;
  const heading = activity.title === '' ? '' : `<p><strong>${escapeHtml(activity.title)}</strong></p>\n`;
  return page(locale, text.setUpTitle, `${heading}<p>${escapeHtml(text.setUpBody)}</p>\n${form}`);
}

export function boundPage(locale: PageLocale, activity: ActivityView): string {
  const text = pageText(locale);
  return page(
    locale,
    text.boundTitle,
    `<p>${escapeHtml(text.boundBody)}</p>
<p><a class="button" href="/chat/${activity.assistant_id ?? ''}">${escapeHtml(text.openChat)}</a></p>
<p><a href="/lti/activities/${activity.id}">${escapeHtml(text.openDashboard)}</a></p>`,
  );
}

export function deepLinkingPickerPage(locale: PageLocale, context: string, choices: AssistantChoice[]): string {
  const text = pageText(locale);
  const form =
    choices.length === 0
      ? `<p>${escapeHtml(text.noAssistants)}</p>`
      : `<form method="post" action="/lti/1.3/deep-linking">
<input type="hidden" name="context" value="${escapeHtml(context)}">
${assistantSelect(text, choices, null)}
<div><button type="submit">${escapeHtml(text.addToCourse)}</button></div>
</form>`;
  return page(locale, text.pickerTitle, `<p>${escapeHtml(text.pickerBody)}</p>\n${form}`);
}

export function deepLinkingReturnPage(locale: PageLocale, returnUrl: string, jwt: string): string {
  const text = pageText(locale);
  return page(
    locale,
    text.returningTitle,
    `<form method="post" action="${escapeHtml(returnUrl)}" data-auto-submit>
<input type="hidden" name="JWT" value="${escapeHtml(jwt)}">
<button type="submit">${escapeHtml(text.returnToCourse)}</button>
</form>`,
    AUTO_SUBMIT_SCRIPT_PATH,
  );
}

export interface DashboardPageContent {
  dashboard: ActivityDashboard;
  assistantName: string | undefined;
  /** The learners' chats, pseudonymized; undefined when the viewer may not read them. */
  chats: ReadableChatWithMessages[] | undefined;
}

/** The learners' chats as plain text (no markdown: nothing a model wrote becomes markup here), one fold each. */
function chatsSection(text: PageText, chats: ReadableChatWithMessages[] | undefined): string {
  if (chats === undefined) return `<p>${escapeHtml(text.chatsNotShown)}</p>`;
  if (chats.length === 0) return `<p>${escapeHtml(text.noChats)}</p>`;
  return chats
    .map((chat) => {
      const summary = text.chatSummary
        .replace('{learner}', chat.learner)
        .replace('{title}', chat.title === '' ? text.untitledChat : chat.title)
        .replace('{count}', String(chat.messages.length));
      const messages = chat.messages
        .map(
          (message) =>
            `<dt>${escapeHtml(message.role === 'user' ? text.questionLabel : text.answerLabel)}</dt><dd class="said">${escapeHtml(message.content)}</dd>`,
        )
        .join('\n');
      return `<details><summary>${escapeHtml(summary)}</summary><dl>${messages}</dl></details>`;
    })
    .join('\n');
}

export function dashboardPage(locale: PageLocale, content: DashboardPageContent): string {
  const text = pageText(locale);
  const { dashboard, assistantName, chats } = content;
  const { activity, learners, usage } = dashboard;
  const rows = learners
    .map(
      (learner) =>
        `<tr><td>${escapeHtml(learner.name)}</td><td>${learner.launches}</td><td><time datetime="${escapeHtml(learner.last_visit)}">${escapeHtml(learner.last_visit.slice(0, 16).replace('T', ' '))}</time></td></tr>`,
    )
    .join('\n');
  const table =
    learners.length === 0
      ? `<p>${escapeHtml(text.noLearners)}</p>`
      : `<table>
<thead><tr><th scope="col">${escapeHtml(text.learnerColumn)}</th><th scope="col">${escapeHtml(text.launchesColumn)}</th><th scope="col">${escapeHtml(text.lastVisitColumn)}</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
  const assistant =
    activity.assistant_id === null
      ? `<p>${escapeHtml(text.noAssistantBound)} <a href="/lti/activities/${activity.id}/setup">${escapeHtml(text.setUpTitle)}</a></p>`
      : `<p><a href="/chat/${activity.assistant_id}">${escapeHtml(assistantName ?? `#${activity.assistant_id}`)}</a></p>`;
  const heading = activity.title === '' ? '' : `<p><strong>${escapeHtml(activity.title)}</strong></p>\n`;
  return page(
    locale,
    text.dashboardTitle,
    `${heading}<h2>${escapeHtml(text.assistantHeading)}</h2>
${assistant}
<h2>${escapeHtml(text.learnersHeading)}</h2>
${table}
<h2>${escapeHtml(text.usageHeading)}</h2>
<dl>
<dt>${escapeHtml(text.chats)}</dt><dd>${usage.chats}</dd>
<dt>${escapeHtml(text.messages)}</dt><dd>${usage.messages}</dd>
<dt>${escapeHtml(text.requests)}</dt><dd>${usage.requests}</dd>
<dt>${escapeHtml(text.promptTokens)}</dt><dd>${usage.prompt_tokens}</dd>
<dt>${escapeHtml(text.completionTokens)}</dt><dd>${usage.completion_tokens}</dd>
</dl>
<h2>${escapeHtml(text.chatsHeading)}</h2>
${chatsSection(text, chats)}`,
  );
}
