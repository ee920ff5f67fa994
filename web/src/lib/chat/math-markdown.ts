/**
 * KaTeX for the markdown renderer, in its own module so that the bundler splits it (with its
 * stylesheet and fonts) into a chunk the page fetches only when an answer contains math.
 * `trust: false` keeps `\href{javascript:…}` and similar commands from producing links.
 */
import { katex } from '@mdit/plugin-katex';
import type MarkdownIt from 'markdown-it';
import 'katex/dist/katex.min.css';

const MAXIMUM_EXPANSIONS = 200;
const MAXIMUM_SIZE_EM = 20;

export function addMath(markdown: MarkdownIt): MarkdownIt {
  markdown.use(katex, {
    delimiters: 'all',
    throwOnError: false,
    trust: false,
    strict: 'ignore',
    maxExpand: MAXIMUM_EXPANSIONS,
    maxSize: MAXIMUM_SIZE_EM,
    output: 'htmlAndMathml',
    logger: () => false,
  });
  return markdown;
}
