/**
 * Turns the numbered citations a model writes (`[1]`, `[2]`) in a rendered answer into links to
 * the passage they cite. It works on the sanitized DOM and only creates anchors itself, so no model
 * text becomes markup; code, existing links and numbers with no source are left as they are.
 */
const CITATION = /\[(\d{1,3})\]/g;
const HAS_CITATION = /\[\d{1,3}\]/;

function textNodesOutsideCodeAndLinks(root: HTMLElement): Text[] {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest('a, code, pre, .katex') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode())
    if (HAS_CITATION.test(node.textContent ?? '')) nodes.push(node as Text);
  return nodes;
}

export interface CitationTargets {
  /** How many sources the answer has: `[n]` links only for 1 ≤ n ≤ this. */
  count: number;
  /** The element id of passage n. */
  targetId: (number: number) => string;
  /** The link's accessible name for passage n. */
  label: (number: number) => string;
}

export function linkCitations(root: HTMLElement, targets: CitationTargets): void {
  for (const node of textNodesOutsideCodeAndLinks(root)) {
    const text = node.textContent;
    const fragment = document.createDocumentFragment();
    let last = 0;
    for (const match of text.matchAll(CITATION)) {
      const number = Number(match[1]);
      if (number < 1 || number > targets.count) continue;
      fragment.append(text.slice(last, match.index));
      const link = document.createElement('a');
      link.href = `#${targets.targetId(number)}`;
      link.className = 'citation';
      link.textContent = match[0];
      link.setAttribute('aria-label', targets.label(number));
      fragment.append(link);
      last = match.index + match[0].length;
    }
    if (last === 0) continue;
    fragment.append(text.slice(last));
    node.replaceWith(fragment);
  }
}
