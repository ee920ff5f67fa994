// YouTube's caption endpoints on loopback, in their own wire formats, for adding a video's
// transcript by its address (point YOUTUBE_BASE_URL at `origin`):
//
//   GET /api/timedtext?type=list&v=ID           the track list, text/xml:
//       <transcript_list docid="…"><track id="0" name="" lang_code="en" lang_original="English"
//        lang_translated="English" lang_default="true"/>…</transcript_list>
//       (an automatic track has kind="asr"; a video without captions has an empty list)
//   GET /api/timedtext?v=ID&lang=L[&name=N][&kind=asr]&fmt=vtt    the track as WebVTT, text/vtt
//   GET /api/timedtext?v=ID&lang=L[&name=N][&kind=asr]            the same as YouTube's XML, text/xml:
//       <transcript><text start="2.5" dur="3.1">…</text></transcript>
//   GET /oembed?url=…&format=json                the video's title, application/json
//
// The videos (11-character ids, as YouTube's are):
//   tectonics01   English (default, by a person), Spanish (by a person), English (automatic)
//   autoonly001   automatic English captions only
//   nocaptions1   none
//   slowcaption   a track list at once, then captions that never finish (until the client leaves)
//   hugecaption   captions of `hugeBytes` bytes
//   notcaptions   "captions" that are an HTML error page sent as text/vtt
// Every request is recorded, so a test can tell what was fetched.
import type http from 'node:http';
import { appendBounded, listenOnLoopback, pause, sendJson, writeFlushed, type RecordedRequest } from './fake-http.js';

export interface FakeYoutube {
  origin: string;
  requests: RecordedRequest[];
  reset(): void;
  close(): Promise<void>;
}

interface Track {
  lang: string;
  name: string;
  language: string;
  asr?: boolean;
  isDefault?: boolean;
  cues: Array<[start: number, duration: number, text: string]>;
}

const TECTONICS_EN: Track['cues'] = [
  [2, 4, 'Welcome to plate tectonics in ten minutes.'],
  [125.5, 5, 'Subduction zones pull the ocean floor &amp; its sediments down into the mantle.'],
  [402, 6, 'Mid-ocean ridges push the plates apart by a few centimetres a year.'],
];

const VIDEOS: Record<string, { title: string; tracks: Track[] }> = {
  tectonics01: {
    title: 'Plate tectonics in ten minutes',
    tracks: [
      { lang: 'en', name: '', language: 'English', isDefault: true, cues: TECTONICS_EN },
      {
        lang: 'es',
        name: '',
        language: 'Spanish',
        cues: [
          [2, 4, 'Bienvenidos a la tectónica de placas en diez minutos.'],
          [125.5, 5, 'Las zonas de subducción arrastran el fondo oceánico hacia el manto.'],
        ],
      },
      { lang: 'en', name: '', language: 'English', asr: true, cues: [[2, 4, 'welcome to plate tech tonics in ten minutes']] },
    ],
  },
  autoonly001: {
    title: 'Volcano field trip',
    tracks: [{ lang: 'en', name: '', language: 'English', asr: true, cues: [[61, 3, 'here the lava cooled into basalt columns']] }],
  },
  nocaptions1: { title: 'Silent timelapse', tracks: [] },
  slowcaption: { title: 'Slow captions', tracks: [{ lang: 'en', name: '', language: 'English', cues: [] }] },
  hugecaption: { title: 'Huge captions', tracks: [{ lang: 'en', name: '', language: 'English', cues: [] }] },
  notcaptions: { title: 'Broken captions', tracks: [{ lang: 'en', name: '', language: 'English', cues: [] }] },
};

function vttTime(seconds: number): string {
  const whole = Math.floor(seconds);
  const two = (value: number) => String(value).padStart(2, '0');
  const milliseconds = String(Math.round((seconds - whole) * 1000)).padStart(3, '0');
  return `${two(Math.floor(whole / 3600))}:${two(Math.floor((whole % 3600) / 60))}:${two(whole % 60)}.${milliseconds}`;
}

/** The track as YouTube's `fmt=vtt` sends it: a header naming the kind and language, then the cues. */
function asVtt(track: Track): string {
  const cues = track.cues.map(([start, duration, text]) => `${vttTime(start)} --> ${vttTime(start + duration)}\n${text}`);
  return `WEBVTT\nKind: captions\nLanguage: ${track.lang}\n\n${cues.join('\n\n')}\n`;
}

function asXml(track: Track): string {
  const texts = track.cues.map(([start, duration, text]) => `<text start="${start}" dur="${duration}">${text}</text>`).join('');
  return `<?xml version="1.0" encoding="utf-8" ?><transcript>${texts}</transcript>`;
}

function trackList(videoId: string, tracks: Track[]): string {
  const items = tracks.map(
    (track, index) =>
      `<track id="${index}" name="${track.name}" lang_code="${track.lang}" lang_original="${track.language}" lang_translated="${track.language}"${track.asr ? ' kind="asr"' : ''}${track.isDefault ? ' lang_default="true"' : ''}/>`,
  );
  return `<?xml version="1.0" encoding="utf-8" ?><transcript_list docid="${videoId.length * 7919}">${items.join('')}</transcript_list>`;
}

export async function startFakeYoutube(options: { hugeBytes: number }): Promise<FakeYoutube> {
  const requests: RecordedRequest[] = [];
  const send = (response: http.ServerResponse, type: string, body: string, status = 200): void => {
    response.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
    response.end(body);
  };

  const sendTrack = async (
    response: http.ServerResponse,
    videoId: string,
    track: Track,
    vtt: boolean,
    shutdown: AbortSignal,
  ): Promise<void> => {
    if (videoId === 'slowcaption') {
      response.writeHead(200, { 'content-type': 'text/vtt; charset=utf-8' });
      await writeFlushed(response, 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nLoading');
      const closed = new AbortController();
      response.on('close', () => closed.abort());
      await pause(60_000, AbortSignal.any([closed.signal, shutdown]));
      response.end('\n');
      return;
    }
    if (videoId === 'hugecaption') {
      response.writeHead(200, { 'content-type': 'text/vtt; charset=utf-8' });
      const cue = '00:00:01.000 --> 00:00:02.000\nThe same sentence again and again, far past any bound.\n\n';
      await writeFlushed(response, 'WEBVTT\n\n');
      for (let sent = 0; sent < options.hugeBytes && !response.destroyed && !shutdown.aborted; sent += cue.length)
        await writeFlushed(response, cue);
      response.end();
      return;
    }
    if (videoId === 'notcaptions') {
      send(response, 'text/vtt', '<html><body><h1>Sorry, something went wrong.</h1></body></html>');
      return;
    }
    if (vtt) send(response, 'text/vtt; charset=utf-8', asVtt(track));
    else send(response, 'text/xml; charset=utf-8', asXml(track));
  };

  const server = await listenOnLoopback(async (request, response, shutdown) => {
    const url = new URL(request.url ?? '/', 'http://youtube');
    appendBounded(requests, {
      method: request.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      headers: request.headers,
      body: undefined,
      receivedAt: Date.now(),
    });
    if (url.pathname === '/oembed') {
      const videoId = new URL(url.searchParams.get('url') ?? 'https://www.youtube.com/').searchParams.get('v') ?? '';
      const video = VIDEOS[videoId];
      if (video === undefined) {
        send(response, 'text/html', 'Not Found', 404);
        return;
      }
      sendJson(response, 200, {
        title: video.title,
        author_name: 'Earth Science Class',
        type: 'video',
        provider_name: 'YouTube',
        version: '1.0',
      });
      return;
    }
    if (url.pathname !== '/api/timedtext') {
      send(response, 'text/html', '<html><body>404</body></html>', 404);
      return;
    }
    const videoId = url.searchParams.get('v') ?? '';
    const video = VIDEOS[videoId];
    // YouTube answers an unknown video as one without captions: an empty body.
    if (url.searchParams.get('type') === 'list') {
      send(response, 'text/xml; charset=utf-8', video === undefined ? '' : trackList(videoId, video.tracks));
      return;
    }
    const track = video?.tracks.find(
      (candidate) =>
        candidate.lang === url.searchParams.get('lang') &&
        candidate.name === (url.searchParams.get('name') ?? '') &&
        Boolean(candidate.asr) === (url.searchParams.get('kind') === 'asr'),
    );
    if (track === undefined) {
      send(response, 'text/html; charset=utf-8', '', 200);
      return;
    }
    return sendTrack(response, videoId, track, url.searchParams.get('fmt') === 'vtt', shutdown);
  });

  return {
    origin: server.origin,
    requests,
    reset: () => {
      requests.length = 0;
    },
    close: () => server.close(),
  };
}
