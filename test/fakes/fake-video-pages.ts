// The video pages of the fake web site (fake-web-site-server.ts), for adding a transcript by a
// page's address: pages whose <video> offers caption tracks, a page linking a SubRip file, the
// caption files themselves, and hostile tracks, each on its own path:
//
//   /videos/cells              <video src="/media/cells.mp4"> with English (default) and Spanish <track>s
//   /videos/reefs              an article that links /captions/reefs.srt ("Transcript")
//   /videos/private-track      a <track> on http://169.254.169.254/ (cloud metadata)
//   /videos/redirected-track   a <track> that redirects to http://169.254.169.254/
//   /videos/huge-track         a <track> of `hugeBytes` bytes
//   /videos/slow-track         a <track> whose body never finishes (until the client leaves)
//   /videos/html-track         a <track> sent as text/html
//   /videos/garbage-track      a <track> sent as text/vtt that holds no cue
//   /captions/*.vtt, *.srt     the caption files
import type http from 'node:http';
import { pause, writeFlushed } from './fake-http.js';

const CELLS_EN = `WEBVTT

00:00:03.000 --> 00:00:07.000
<v Teacher>Today we look at the <b>cell membrane</b>.

00:02:05.000 --> 00:02:10.000
Mitochondria release energy from glucose in cellular respiration.
`;

const CELLS_ES = `WEBVTT

00:00:03.000 --> 00:00:07.000
Hoy miramos la membrana celular.

00:02:05.000 --> 00:02:10.000
Las mitocondrias liberan energía de la glucosa.
`;

const REEFS_SRT = `1
00:00:01,000 --> 00:00:04,000
Coral reefs cover less than one percent of the ocean floor.

2
00:03:20,000 --> 00:03:25,000
Bleaching happens when the water is too warm for the zooxanthellae.
`;

function videoPage(title: string, video: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} – School Video Library</title></head>
<body><header><nav><a href="/">Home</a></nav></header>
<main><h1>${title}</h1>${video}<p>Watch the lesson and read along with the captions.</p></main>
<footer>© School Video Library</footer></body></html>`;
}

const TRACK_PAGES: Record<string, string> = {
  'private-track': 'http://169.254.169.254/latest/captions.vtt',
  'redirected-track': '/captions/redirect-private.vtt',
  'huge-track': '/captions/huge.vtt',
  'slow-track': '/captions/slow.vtt',
  'html-track': '/captions/html.vtt',
  'garbage-track': '/captions/garbage.vtt',
};

function send(response: http.ServerResponse, type: string, body: string): void {
  response.writeHead(200, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
  response.end(body);
}

/** Answers a /videos/ or /captions/ path; false when the path is none of these. */
export async function answerVideoPath(
  path: string,
  response: http.ServerResponse,
  options: { hugeBytes: number; shutdown: AbortSignal },
): Promise<boolean> {
  if (path === '/videos/cells') {
    const video = `<video controls src="/media/cells.mp4" width="640">
<track kind="captions" src="/captions/cells.en.vtt" srclang="en" label="English" default>
<track kind="subtitles" src="/captions/cells.es.vtt" srclang="es" label="Español">
<track kind="chapters" src="/captions/cells.chapters.vtt" srclang="en">
</video>`;
    send(response, 'text/html; charset=utf-8', videoPage('Inside the cell', video));
    return true;
  }
  if (path === '/videos/reefs') {
    send(
      response,
      'text/html; charset=utf-8',
      videoPage('Coral reefs', '<p><a href="/captions/reefs.srt" hreflang="en">Transcript (SubRip)</a></p>'),
    );
    return true;
  }
  const hostile = TRACK_PAGES[path.slice('/videos/'.length)];
  if (path.startsWith('/videos/') && hostile !== undefined) {
    send(
      response,
      'text/html; charset=utf-8',
      videoPage('Hostile track', `<video src="/media/clip.mp4"><track kind="captions" src="${hostile}" srclang="en"></video>`),
    );
    return true;
  }
  switch (path) {
    case '/captions/cells.en.vtt':
      send(response, 'text/vtt; charset=utf-8', CELLS_EN);
      return true;
    case '/captions/cells.es.vtt':
      send(response, 'text/vtt; charset=utf-8', CELLS_ES);
      return true;
    case '/captions/reefs.srt':
      send(response, 'application/x-subrip', REEFS_SRT);
      return true;
    case '/captions/redirect-private.vtt':
      response.writeHead(302, { location: 'http://169.254.169.254/latest/captions.vtt' });
      response.end();
      return true;
    case '/captions/html.vtt':
      send(response, 'text/html; charset=utf-8', '<html><body><p>Captions are coming soon.</p></body></html>');
      return true;
    case '/captions/garbage.vtt':
      send(response, 'text/vtt', 'WEBVTT\n\nthese words have no time line\nand no cue at all\n');
      return true;
    case '/captions/huge.vtt': {
      response.writeHead(200, { 'content-type': 'text/vtt' });
      const cue = '00:00:01.000 --> 00:00:02.000\nThe same sentence again and again, far past any bound.\n\n';
      await writeFlushed(response, 'WEBVTT\n\n');
      for (let sent = 0; sent < options.hugeBytes && !response.destroyed && !options.shutdown.aborted; sent += cue.length)
        await writeFlushed(response, cue);
      response.end();
      return true;
    }
    case '/captions/slow.vtt': {
      response.writeHead(200, { 'content-type': 'text/vtt' });
      await writeFlushed(response, 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nLoading');
      const closed = new AbortController();
      response.on('close', () => closed.abort());
      await pause(60_000, AbortSignal.any([closed.signal, options.shutdown]));
      response.end('\n');
      return true;
    }
    default:
      return false;
  }
}
