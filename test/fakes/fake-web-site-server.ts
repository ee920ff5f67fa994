// A small web site on loopback for reading pages: real-looking article pages (navigation, a main
// article, a footer, a script) and hostile ones, each on its own path:
//
//   /articles/photosynthesis, /articles/water-cycle   HTML articles with readable text
//   /notes.txt                                        a plain-text page
//   /huge                                             an HTML page of `hugeBytes` bytes, sent in chunks without a length
//   /huge-declared                                    the same, announcing its length in Content-Length
//   /slow                                             headers at once, then a body that never finishes (until the client leaves)
//   /redirect-loop?hop=N                              302 to /redirect-loop?hop=N+1, forever
//   /redirect-private                                 302 to http://169.254.169.254/latest/meta-data/ (cloud metadata)
//   /photo.png                                        image/png bytes
//   /app                                              a single-page app: an empty root, a script and a <noscript>
//   /gone                                             404
//   /robots.txt                                       asks every robot to keep out of /members/
//   /members/grades                                   a page robots.txt keeps robots from
//   /course/ …                                        a small course site for following links: /course/ links to
//                                                     /course/cells (twice, once with a fragment), itself (a loop),
//                                                     an off-site page, /course/moved (a redirect off the site),
//                                                     /members/grades, /redirect-private, /slow and /huge; cells links
//                                                     to /course/genetics, which links to /course/evolution
//   /mutable                                          an article whose text `setMutableText` changes (for refreshes)
//   /many/N                                           `manyPages` linked pages, page N linking to pages 2N+1 and 2N+2
//   /videos/…, /captions/…                            video pages with caption tracks (fake-video-pages.ts)
//
// Every request is recorded, so a test can tell which pages were fetched.
import type http from 'node:http';
import { appendBounded, listenOnLoopback, pause, writeFlushed, type RecordedRequest } from './fake-http.js';
import { answerVideoPath } from './fake-video-pages.js';

export interface FakeWebSite {
  origin: string;
  requests: RecordedRequest[];
  /** The paths fetched, in order. */
  fetchedPaths(): string[];
  /** Changes the text of /mutable, as a site edits a page; empty text makes it a 404. */
  setMutableText(text: string): void;
  reset(): void;
  close(): Promise<void>;
}

const ARTICLES: Record<string, { title: string; paragraphs: string[] }> = {
  photosynthesis: {
    title: 'Photosynthesis',
    paragraphs: [
      'Photosynthesis is the process by which green plants, algae and some bacteria turn light energy into chemical energy stored in glucose.',
      'It takes place in the chloroplasts, where the green pigment chlorophyll absorbs mostly blue and red light.',
      'The light-dependent reactions split water and release oxygen; the Calvin cycle then fixes carbon dioxide into sugars.',
    ],
  },
  'water-cycle': {
    title: 'The water cycle',
    paragraphs: [
      'The water cycle describes how water evaporates from oceans and lakes, condenses into clouds and falls back as precipitation.',
      'Transpiration from plants adds water vapour to the air, and run-off carries water back to the sea.',
    ],
  },
};

function articlePage(slug: string): string | undefined {
  const article = ARTICLES[slug];
  if (article === undefined) return undefined;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${article.title} – Open Science Notes</title>
<link rel="stylesheet" href="/site.css"><script>window.analytics = { track() {} };</script></head>
<body>
<header><nav><a href="/">Home</a> | <a href="/articles">Articles</a> | <a href="/about">About us</a> | <a href="/login">Log in</a></nav></header>
<main>
<article>
<h1>${article.title}</h1>
<p class="byline">By the Open Science Notes team</p>
${article.paragraphs.map((paragraph) => `<p>${paragraph}</p>`).join('\n')}
</article>
<aside><h2>Related</h2><ul><li><a href="/articles/water-cycle">Water cycle</a></li></ul></aside>
</main>
<footer><p>© 2026 Open Science Notes. Cookie settings.</p></footer>
<script>document.querySelectorAll('a').forEach(() => {});</script>
</body>
</html>`;
}

const SCRIPT_ONLY_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Study App</title><script defer src="/static/js/main.4f2a.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>
<script>window.__INITIAL_STATE__ = {"route":"/","user":null};</script></body></html>`;

/** A plain article page with the links given, each in the article body. */
/** A page of the course site, or of the many pages (whose navigation leads to their own first page, never into the course's hostile links). */
function linkedPage(title: string, paragraphs: readonly string[], links: readonly string[], home = '/course/'): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>
<nav><a href="${home}">Home</a></nav>
<main><article><h1>${title}</h1>
${paragraphs.map((paragraph) => `<p>${paragraph}</p>`).join('\n')}
<ul>${links.map((link) => `<li><a href="${link}">${link}</a></li>`).join('')}</ul>
</article></main></body></html>`;
}

function coursePage(path: string, origin: string): string | undefined {
  const lesson = (topic: string): string =>
    `This lesson explains ${topic} for secondary school pupils, with examples, a short summary and questions to check understanding.`;
  switch (path) {
    case '/course/':
      return linkedPage(
        'Biology course',
        [lesson('how the course is organised')],
        [
          '/course/cells',
          '/course/cells#membranes',
          '/course/',
          'https://example.org/elsewhere',
          '/course/moved',
          '/members/grades',
          '/redirect-private',
          '/slow',
          '/huge',
          `${origin.replace('127.0.0.1', 'localhost')}/course/cells`,
          'mailto:teacher@example.org',
        ],
      );
    case '/course/cells':
      return linkedPage('Cells', [lesson('cells, membranes and organelles')], ['/course/genetics', '/course/']);
    case '/course/genetics':
      return linkedPage('Genetics', [lesson('genes, alleles and inheritance')], ['/course/evolution', '/course/cells']);
    case '/course/evolution':
      return linkedPage('Evolution', [lesson('natural selection and evolution')], ['/course/']);
    default:
      return undefined;
  }
}

export async function startFakeWebSite(options: { hugeBytes: number; manyPages?: number }): Promise<FakeWebSite> {
  const requests: RecordedRequest[] = [];
  let mutableText = 'The first version of this page explains the phases of the moon, from the new moon to the full moon.';
  const filler = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(16)}</p>\n`;

  const sendHtml = (response: http.ServerResponse, html: string, status = 200): void => {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(html)) });
    response.end(html);
  };

  const sendHuge = async (response: http.ServerResponse, declared: boolean, signal: AbortSignal): Promise<void> => {
    const pieces = Math.ceil(options.hugeBytes / filler.length);
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      ...(declared && { 'content-length': String(pieces * filler.length) }),
    });
    for (let index = 0; index < pieces && !response.destroyed && !signal.aborted; index += 1) await writeFlushed(response, filler);
    response.end();
  };

  const server = await listenOnLoopback(async (request, response, shutdown) => {
    const url = new URL(request.url ?? '/', 'http://site');
    appendBounded(requests, {
      method: request.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      headers: request.headers,
      body: undefined,
      receivedAt: Date.now(),
    });
    const article = url.pathname.startsWith('/articles/') ? articlePage(url.pathname.slice('/articles/'.length)) : undefined;
    if (article !== undefined) {
      sendHtml(response, article);
      return;
    }
    const lesson = coursePage(url.pathname, server.origin);
    if (lesson !== undefined) {
      sendHtml(response, lesson);
      return;
    }
    const many = /^\/many\/(\d+)$/.exec(url.pathname);
    if (many !== null && Number(many[1]) < (options.manyPages ?? 0)) {
      const index = Number(many[1]);
      const links = [2 * index + 1, 2 * index + 2].filter((next) => next < (options.manyPages ?? 0)).map((next) => `/many/${next}`);
      sendHtml(response, linkedPage(`Page ${index}`, [`Page ${index} of the many pages. ${filler.slice(3, 400)}`], links, '/many/0'));
      return;
    }
    if (await answerVideoPath(url.pathname, response, { hugeBytes: options.hugeBytes, shutdown })) return;
    switch (url.pathname) {
      case '/notes.txt': {
        const text = 'Revision notes.\n\nPhotosynthesis makes glucose and oxygen from light, water and carbon dioxide.\n';
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(text);
        return;
      }
      case '/huge':
        return sendHuge(response, false, shutdown);
      case '/huge-declared':
        return sendHuge(response, true, shutdown);
      case '/slow': {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        await writeFlushed(response, '<html><head><title>Slow</title></head><body><p>Loading');
        const closed = new AbortController();
        response.on('close', () => closed.abort());
        await pause(60_000, AbortSignal.any([closed.signal, shutdown]));
        response.end('</p></body></html>');
        return;
      }
      case '/redirect-loop': {
        const hop = Number(url.searchParams.get('hop') ?? '0') + 1;
        response.writeHead(302, { location: `/redirect-loop?hop=${hop}` });
        response.end();
        return;
      }
      case '/redirect-private':
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        response.end();
        return;
      case '/photo.png':
        response.writeHead(200, { 'content-type': 'image/png' });
        response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
        return;
      case '/app': {
        sendHtml(response, SCRIPT_ONLY_PAGE);
        return;
      }
      case '/robots.txt':
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('# Open Science Notes\nUser-agent: *\nDisallow: /members/\n');
        return;
      case '/course/moved':
        response.writeHead(302, { location: `${server.origin.replace('127.0.0.1', 'localhost')}/articles/water-cycle` });
        response.end();
        return;
      case '/mutable':
        if (mutableText === '') sendHtml(response, '<html><head><title>Gone</title></head><body><h1>Gone</h1></body></html>', 404);
        else sendHtml(response, linkedPage('Moon phases', [mutableText], []));
        return;
      case '/members/grades':
        sendHtml(response, articlePage('photosynthesis')!.replace('Photosynthesis', 'Grades of every pupil'));
        return;
      default: {
        sendHtml(response, '<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>', 404);
        return;
      }
    }
  });

  return {
    origin: server.origin,
    requests,
    fetchedPaths: () => requests.map((recorded) => recorded.path),
    setMutableText: (text) => {
      mutableText = text;
    },
    reset: () => {
      requests.length = 0;
    },
    close: () => server.close(),
  };
}
