/**
 * The second line of defence for rendered answers: DOMPurify removes anything executable that
 * the markdown renderer might still let through (event attributes, scripts, unsafe URLs, images
 * other than this server's generated images), and keeps only the attributes the renderer itself writes.
 */
import DOMPurify from 'dompurify';
import { GENERATED_IMAGE_PATH } from './markdown';

// The only image kept is a generated image of this server (markdown.ts renders no other).
DOMPurify.addHook('uponSanitizeElement', (node, data) => {
  if (data.tagName === 'img' && !GENERATED_IMAGE_PATH.test((node as Element).getAttribute('src') ?? '')) node.parentNode?.removeChild(node);
});

const SAFE_URI = /^(?:https?:|mailto:|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;

export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, {
    ADD_ATTR: ['target'],
    FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'video', 'audio', 'iframe', 'object', 'embed'],
    ALLOWED_URI_REGEXP: SAFE_URI,
  });
}
