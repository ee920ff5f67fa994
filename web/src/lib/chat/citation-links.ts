/**
 * Turns the numbered citations a model writes (`[1]`, `[2]`) into links to the passage they cite,
 * as a markdown-it core rule: it splits the parsed text tokens and adds link tokens of its own, so
 * no model text ever becomes markup. Code (its own tokens), text already inside a link, and
 * numbers with no source stay as they are. The targets come in the render's environment, so one
 * cached renderer serves every answer.
 */
import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';

const CITATION = /\[(\d{1,3})\]/g;

export interface CitationTargets {
  /** How many sources the answer has: `[n]` links only for 1 ≤ n ≤ this. */
  count: number;
  /** The element id of passage n. */
  targetId: (number: number) => string;
  /** The link's accessible name for passage n. */
  label: (number: number) => string;
}

/** What a render passes to markdown-it as its environment. */
export interface CitationEnvironment {
  citations?: CitationTargets;
}

/** The attribute that marks a citation's link, so the link renderer leaves it in this page. */
export const CITATION_ATTRIBUTE = 'data-citation';

function textToken(state: StateCore, content: string): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  return token;
}

function citationTokens(state: StateCore, number: number, targets: CitationTargets): Token[] {
  const open = new state.Token('link_open', 'a', 1);
  open.attrs = [
    ['href', `#${targets.targetId(number)}`],
    ['class', 'citation'],
    ['aria-label', targets.label(number)],
    [CITATION_ATTRIBUTE, ''],
  ];
  const close = new state.Token('link_close', 'a', -1);
  return [open, textToken(state, `[${number}]`), close];
}

/** The tokens for one text token: itself when it cites nothing, else text and citation links. */
function splitText(state: StateCore, token: Token, targets: CitationTargets): Token[] {
  const pieces: Token[] = [];
  let last = 0;
  for (const match of token.content.matchAll(CITATION)) {
    const number = Number(match[1]);
    if (number < 1 || number > targets.count) continue;
    if (match.index > last) pieces.push(textToken(state, token.content.slice(last, match.index)));
    pieces.push(...citationTokens(state, number, targets));
    last = match.index + match[0].length;
  }
  if (last === 0) return [token];
  if (last < token.content.length) pieces.push(textToken(state, token.content.slice(last)));
  return pieces;
}

function linkInline(state: StateCore, inline: Token, targets: CitationTargets): void {
  const children: Token[] = [];
  let linkDepth = 0;
  for (const child of inline.children ?? []) {
    if (child.type === 'link_open') linkDepth += 1;
    if (child.type === 'link_close') linkDepth -= 1;
    children.push(...(child.type === 'text' && linkDepth === 0 ? splitText(state, child, targets) : [child]));
  }
  inline.children = children;
}

/** The core rule: every inline run's text, outside links, gets its citations linked. */
export function linkCitations(state: StateCore): void {
  const targets = (state.env as CitationEnvironment | undefined)?.citations;
  if (!targets || targets.count < 1) return;
  for (const token of state.tokens) if (token.type === 'inline') linkInline(state, token, targets);
}

/**
 * Adds the citation rule to a renderer, after markdown-it has parsed inline text and linkified
 * it. A citation's link stays in this page: the renderer's other links open a new tab.
 */
export function addCitationLinks(markdown: MarkdownIt): MarkdownIt {
  markdown.core.ruler.push('citation_links', (state) => {
    linkCitations(state);
  });
  const otherLinks = markdown.renderer.rules.link_open;
  // eslint-disable-next-line max-params -- markdown-it calls every render rule with these five arguments.
  markdown.renderer.rules.link_open = (tokens, index, options, environment, self) =>
    tokens[index]?.attrGet(CITATION_ATTRIBUTE) === null && otherLinks
      ? otherLinks(tokens, index, options, environment, self)
      : self.renderToken(tokens, index, options);
  return markdown;
}
