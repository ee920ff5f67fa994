/**
 * How the LTI routes answer with one of the server's own HTML pages (lti-pages.ts): in the
 * language the browser asks for, never cached, and with a referrer policy its own forms can post under.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pageLocale, type PageLocale } from './lti-page-text.js';

/** The language of the request's pages: the browser's chosen one (its cookie), else its Accept-Language. */
export function requestPageLocale(request: FastifyRequest): PageLocale {
  return pageLocale(request.headers.cookie, request.headers['accept-language']);
}

/**
 * An LTI page. Its referrer policy is same-origin rather than the server's no-referrer: with
 * no-referrer a browser sends `Origin: null` on the page's own form posts, which the cookie's
 * CSRF check must refuse; same-origin still tells other sites nothing.
 */
export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'same-origin')
    .type('text/html; charset=utf-8')
    .send(html);
}
