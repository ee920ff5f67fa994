/**
 * The second line of defence for rendered answers: DOMPurify removes anything executable that
 * the markdown renderer might still let through (event attributes, scripts, unsafe URLs), and
 * keeps only the attributes the renderer itself writes.
 */
import DOMPurify from 'dompurify';

const SAFE_URI = /^(?:https?:|mailto:|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;

export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, {
    ADD_ATTR: ['target'],
    FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'img', 'video', 'audio', 'iframe', 'object', 'embed'],
    ALLOWED_URI_REGEXP: SAFE_URI,
  });
}
