/**
 * Model answers as HTML, built to be safe before it is sanitized: markdown-it with raw HTML off
 * (a `<script>` in an answer is shown as text), links only to http(s), mailto or this site and
 * only where the text wrote a scheme or a markdown link (a file name is not a domain), no
 * images but the generated images Merino serves itself at `/api/files/{id}/content` (an answer
 * cannot make the browser fetch anything else; docs/image-generation.md), code blocks with a Copy button, and
 * tables that scroll on a phone. The page then runs DOMPurify over the result (sanitize-html.ts)
 * as a second line. Math is rendered by KaTeX, loaded only for answers that contain some
 * (math-markdown.ts), so pages without math never download it.
 */
import MarkdownIt from 'markdown-it';

export interface MarkdownLabels {
  /** The Copy button of a code block. */
  copyCode: string;
  /** A code block's accessible name when it names no language. */
  code: string;
}

/** A URL scheme, when the link has one: `javascript:`, `https:`... */
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);

/**
 * Whether a link target may become a clickable link. markdown-it hands over the URL already
 * normalized (entities decoded, percent-encoded), so `java&#x09;script:` arrives as a scheme.
 */
export function isSafeLink(url: string): boolean {
  // Browsers ignore control characters and spaces inside a scheme, so they go before it is read.
  const compact = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  const scheme = SCHEME.exec(compact)?.[1];
  if (scheme === undefined) return !compact.startsWith('//') && !compact.startsWith('\\');
  return ALLOWED_SCHEMES.has(scheme.toLowerCase());
}

/** The one image an answer may show: a generated image this server serves to its owner (same origin, no query). */
export const GENERATED_IMAGE_PATH = /^\/api\/files\/\d{1,15}\/content$/;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A markdown-it with Merino's safe settings and renderers; `math.ts` adds KaTeX to a copy. */
export function createMarkdown(labels: MarkdownLabels): MarkdownIt {
  const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  // A bare name like "photosynthesis.md" or "notes.py" looks like a domain to a fuzzy linkifier;
  // only text written with a scheme (https://…) or as a markdown link becomes a link.
  markdown.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
  markdown.validateLink = isSafeLink;

  // Any other image is shown as its alt text, so an answer never makes the browser fetch a tracker.
  markdown.renderer.rules.image = (tokens, index) => {
    const token = tokens[index];
    const source = token?.attrGet('src') ?? '';
    const alt = escapeHtml(token?.content ?? '');
    if (!GENERATED_IMAGE_PATH.test(source)) return alt;
    return `<img src="${escapeHtml(source)}" alt="${alt || 'Image'}" class="generated-image" loading="lazy">`;
  };

  // eslint-disable-next-line max-params -- markdown-it calls every render rule with these five arguments.
  markdown.renderer.rules.link_open = (tokens, index, options, _environment, self) => {
    const token = tokens[index];
    if (token) {
      token.attrSet('target', '_blank');
      token.attrSet('rel', 'noopener noreferrer nofollow');
    }
    return self.renderToken(tokens, index, options);
  };

  markdown.renderer.rules.fence = (tokens, index) => {
    const token = tokens[index];
    const language = (token?.info ?? '').trim().split(/\s/, 1)[0] ?? '';
    const safeLanguage = /^[\w+#.-]{1,40}$/.test(language) ? language : '';
    const code = escapeHtml(token?.content ?? '');
    const languageClass = safeLanguage ? ` class="language-${safeLanguage}"` : '';
    return (
      `<div class="code-block"><div class="code-bar"><span class="code-language">${escapeHtml(safeLanguage || labels.code)}</span>` +
      `<button type="button" class="copy-code" data-copy-code>${escapeHtml(labels.copyCode)}</button></div>` +
      `<pre tabindex="0"><code${languageClass}>${code}</code></pre></div>\n`
    );
  };

  // A wide table scrolls inside its own box, which the keyboard can reach (a phone is 375 px wide).
  markdown.renderer.rules.table_open = () => '<div class="table-scroll" tabindex="0"><table>\n';
  markdown.renderer.rules.table_close = () => '</table></div>\n';
  return markdown;
}

/**
 * Whether a text may hold TeX math: `$$`, `\(`, `\[`, or a `$` directly before a non-space.
 * A cheap test that may say yes wrongly (prices); it only decides whether KaTeX is loaded.
 */
export function mayContainMath(text: string): boolean {
  return text.includes('$$') || text.includes('\\(') || text.includes('\\[') || /\$[^\s$\d]/.test(text);
}
