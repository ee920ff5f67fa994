/**
 * The markdown renderers the chat page shares: one plain, one with KaTeX once an answer needed
 * math and the KaTeX chunk arrived. `renderAnswer` is what a component shows: sanitized HTML.
 */
import type MarkdownIt from 'markdown-it';
import { addCitationLinks, type CitationTargets } from './citation-links';
import { createMarkdown, mayContainMath, type MarkdownLabels } from './markdown';
import { sanitizeHtml } from './sanitize-html';

const state = $state<{ mathReady: boolean }>({ mathReady: false });
let addMath: ((markdown: MarkdownIt) => MarkdownIt) | undefined;
let mathLoading: Promise<void> | undefined;
const renderers: Record<string, MarkdownIt> = {};

function loadMath(): void {
  mathLoading ??= import('./math-markdown').then(
    (module) => {
      addMath = module.addMath;
      state.mathReady = true;
    },
    () => {
      // Without KaTeX the TeX stays readable as text; a later answer tries again.
      mathLoading = undefined;
    },
  );
}

function rendererFor(labels: MarkdownLabels, math: boolean): MarkdownIt {
  const key = `${math ? 'math' : 'plain'}\u0000${labels.copyCode}\u0000${labels.code}`;
  let renderer = renderers[key];
  if (!renderer) {
    renderer = addCitationLinks(createMarkdown(labels));
    if (math && addMath) addMath(renderer);
    renderers[key] = renderer;
  }
  return renderer;
}

/** Whether KaTeX has arrived; a component that reads it renders again when it does. */
export function mathReady(): boolean {
  return state.mathReady;
}

/**
 * Sanitized HTML for a model's markdown, its numbered citations linked to `citations` when given;
 * starts loading KaTeX when the text may hold math.
 */
export function renderAnswer(text: string, labels: MarkdownLabels, citations?: CitationTargets): string {
  const wantsMath = mayContainMath(text);
  if (wantsMath && !state.mathReady) loadMath();
  return sanitizeHtml(rendererFor(labels, wantsMath && state.mathReady).render(text, { citations }));
}
