/**
 * Proves, over real HTTP on both dialects, that a teacher adds a video's transcript to a knowledge
 * base by its address, through the same endpoint as a web page: a YouTube address becomes the
 * video's published captions (read from a fake speaking YouTube's caption list and WebVTT, in the
 * language asked for or the video's default, a person's before automatic ones), and a page whose
 * <video> offers a caption track, a page linking a SubRip file, or a caption file's own address
 * becomes that transcript. Its passages start with their time and link to their moment (`&t=…s` on
 * YouTube, `#t=…` on the video file), also as the sources of a chat answer through the official
 * OpenAI client. Only someone who may change the knowledge base gets anything fetched; every
 * hostile video or track (no captions, none in the language, a private or redirected-to-private
 * track, a huge or slow one, the wrong content type, no cue at all) is a 400 saying why and adds
 * nothing, while /healthz keeps answering; 50 videos added at once each become their own document.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebSite, type FakeWebSite } from './fakes/fake-web-site-server.js';
import { startFakeYoutube, type FakeYoutube } from './fakes/fake-youtube-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';
import {
  addByAddress,
  documentCount,
  expectAddingRefusedToOthers,
  expectEachAddedAsItsOwnDocument,
  PAGE_BYTES_MAXIMUM,
  PAGE_TIMEOUT_MILLISECONDS,
  startWebSourceKnowledgeBase,
  WEB_PAGE_LIMITS,
  type WebSourceKnowledgeBase,
} from './support/web-source-knowledge-base.js';

const AT_ONCE = 50;
const TECTONICS = 'https://www.youtube.com/watch?v=tectonics01';

describe.each(TEST_DIALECTS)('video transcripts added to a knowledge base on %s', (dialect) => {
  let site: FakeWebSite;
  let youtube: FakeYoutube;
  let world: WebSourceKnowledgeBase;

  const add = (body: Record<string, unknown>) => addByAddress(world, body);
  const firstHit = async (queryText: string): Promise<any> => {
    const found = await request(world.server, 'POST', `/api/knowledge-bases/${world.knowledgeBaseId}/query`, {
      token: world.teacher.token,
      body: { query_text: queryText, top_k: 1 },
    });
    expect(found.status, found.text).toBe(200);
    return found.body.results[0];
  };
  const addCompleted = async (body: Record<string, unknown>): Promise<any> => {
    const added = await add(body);
    expect(added.status, added.text).toBe(202);
    expect(await waitForJob(world.server, world.teacher.token, world.knowledgeBaseId, added.body.job_id)).toMatchObject({
      status: 'completed',
    });
    return added.body;
  };

  beforeAll(async () => {
    site = await startFakeWebSite({ hugeBytes: PAGE_BYTES_MAXIMUM * 4 });
    youtube = await startFakeYoutube({ hugeBytes: PAGE_BYTES_MAXIMUM * 4 });
    world = await startWebSourceKnowledgeBase(dialect, {
      teacherEmail: `videos-teacher-${dialect}@merino.test`,
      knowledgeBase: { name: 'Earth science videos', chunk_size: 400, chunk_overlap: 20 },
      environment: { YOUTUBE_BASE_URL: youtube.origin, ...WEB_PAGE_LIMITS },
    });
  });

  afterAll(async () => {
    await possiblyUnset(world)?.server.close();
    await possiblyUnset(site)?.close();
    await possiblyUnset(youtube)?.close();
  });

  it("ingests a YouTube video's own captions into passages that link to their moment", async () => {
    youtube.reset();
    const added = await addCompleted({ url: `${TECTONICS}&list=PLearth&index=2` });
    expect(added).toMatchObject({
      kind: 'transcript',
      language: 'en',
      url: TECTONICS,
      title: 'Plate tectonics in ten minutes (captions: English)',
    });
    // The track list, then the person's English track (not the automatic one) as WebVTT, then the title; never the video.
    const paths = youtube.requests.map((recorded) => recorded.path);
    expect(paths[0]).toBe('/api/timedtext?type=list&v=tectonics01');
    expect(paths[1]).toBe('/api/timedtext?v=tectonics01&lang=en&fmt=vtt');
    expect(paths.slice(2).every((path) => path.startsWith('/oembed?'))).toBe(true);

    const hit = await firstHit('subduction ocean floor sediments mantle');
    expect(hit.data).toContain('[2:05] Subduction zones pull the ocean floor & its sediments down into the mantle.');
    expect(hit.metadata).toMatchObject({ start_seconds: 125, source_url: `${TECTONICS}&t=125s`, language: 'en' });
  });

  it('reads the language asked for from youtu.be, shorts and embed addresses, and automatic captions when they are all there is', async () => {
    const spanish = await addCompleted({ url: 'https://youtu.be/tectonics01?si=share', language: 'es' });
    expect(spanish).toMatchObject({ kind: 'transcript', language: 'es', url: TECTONICS });
    expect((await firstHit('subducción fondo oceánico manto')).metadata.source_url).toBe(`${TECTONICS}&t=125s`);
    for (const url of ['https://www.youtube.com/shorts/tectonics01', 'https://m.youtube.com/embed/tectonics01']) {
      const added = await add({ url, language: 'en-GB' });
      expect(added.status, added.text).toBe(202);
      expect(added.body).toMatchObject({ language: 'en', url: TECTONICS });
    }
    const automatic = await addCompleted({ url: 'https://www.youtube.com/watch?v=autoonly001' });
    expect(automatic).toMatchObject({ language: 'en', title: 'Volcano field trip (captions: English, automatic)' });
    expect(youtube.requests.map((recorded) => recorded.path)).toContain('/api/timedtext?v=autoonly001&lang=en&fmt=vtt&kind=asr');
    expect((await firstHit('lava basalt columns')).metadata.source_url).toBe('https://www.youtube.com/watch?v=autoonly001&t=61s');
  });

  it("ingests the caption track a page's video offers, a linked SubRip file and a caption file's own address", async () => {
    const cells = await addCompleted({ url: `${site.origin}/videos/cells` });
    expect(cells).toMatchObject({
      kind: 'transcript',
      language: 'en',
      url: `${site.origin}/media/cells.mp4`,
      title: 'Inside the cell – School Video Library',
    });
    const mitochondria = await firstHit('mitochondria glucose respiration');
    expect(mitochondria.data).toContain('[2:05] Mitochondria release energy');
    expect(mitochondria.metadata.source_url).toBe(`${site.origin}/media/cells.mp4#t=125`);
    expect((await firstHit('cell membrane')).data).not.toMatch(/<b>|Teacher/);

    const spanish = await add({ url: `${site.origin}/videos/cells`, language: 'es' });
    expect(spanish.body).toMatchObject({ kind: 'transcript', language: 'es' });
    const reefs = await addCompleted({ url: `${site.origin}/videos/reefs` });
    expect(reefs).toMatchObject({ kind: 'transcript', language: 'en', url: `${site.origin}/videos/reefs` });
    expect((await firstHit('bleaching zooxanthellae warm')).metadata.source_url).toBe(`${site.origin}/videos/reefs#t=200`);
    const direct = await add({ url: `${site.origin}/captions/cells.en.vtt` });
    expect(direct.body).toMatchObject({ kind: 'transcript', url: `${site.origin}/captions/cells.en.vtt`, language: null });
    const article = await add({ url: `${site.origin}/articles/photosynthesis` });
    expect(article.body).toMatchObject({ kind: 'web_page', language: null });
  });

  it('fetches nothing for anyone who may not change the knowledge base', async () => {
    youtube.reset();
    site.reset();
    const before = await documentCount(world);
    await expectAddingRefusedToOthers(world, { url: TECTONICS, language: 'en' }, `videos-${dialect}`);
    expect(youtube.requests).toEqual([]);
    expect(site.fetchedPaths()).toEqual([]);
    expect(await documentCount(world)).toBe(before);
  });

  it('refuses every hostile video and track with a 400 saying why, adds nothing, and keeps /healthz answering', async () => {
    const before = await documentCount(world);
    const refusals: Array<[Record<string, unknown>, RegExp, string]> = [
      [
        { url: TECTONICS, language: 'fr' },
        /No captions in this language \(fr\); the video has captions in en \(English\), es \(Spanish\), en \(English, automatic\)/,
        'language',
      ],
      [{ url: 'https://www.youtube.com/watch?v=nocaptions1' }, /This video has no captions/, 'url'],
      [{ url: 'https://www.youtube.com/watch?v=unknownvid1' }, /This video has no captions/, 'url'],
      [{ url: 'https://www.youtube.com/watch?v=hugecaption' }, /larger than WEB_PAGE_MAX_BYTES/, 'url'],
      [{ url: 'https://www.youtube.com/watch?v=notcaptions' }, /neither WebVTT nor SubRip/, 'url'],
      [{ url: 'https://www.youtube.com/@EarthScienceClass' }, /names no video/, 'url'],
      [
        { url: `${site.origin}/videos/cells`, language: 'de' },
        /No captions in this language \(de\); the page has captions in en, es/,
        'language',
      ],
      [{ url: `${site.origin}/articles/photosynthesis`, language: 'en' }, /offers no captions on this page/, 'language'],
      [{ url: `${site.origin}/videos/private-track` }, /169\.254\.169\.254 is a private or internal address/, 'url'],
      [{ url: `${site.origin}/videos/redirected-track` }, /private or internal address/, 'url'],
      [
        { url: `${site.origin}/videos/huge-track` },
        /larger than WEB_PAGE_MAX_BYTES \(65536 bytes\); the caption track was not read/,
        'url',
      ],
      [{ url: `${site.origin}/videos/html-track` }, /sent text\/html, not a caption track \(WebVTT or SubRip\)/, 'url'],
      [{ url: `${site.origin}/videos/garbage-track` }, /neither WebVTT nor SubRip/, 'url'],
    ];
    for (const [body, reason, param] of refusals) {
      const refused = await add(body);
      expect(refused.status, `${JSON.stringify(body)}: ${refused.text}`).toBe(400);
      expect(refused.body.error, JSON.stringify(body)).toMatchObject({ code: 'unreadable_document', param });
      expect(refused.body.error.message, JSON.stringify(body)).toMatch(reason);
    }
    const missing = await add({ url: TECTONICS, language: 'fr' });
    expect(missing.body.error.details).toEqual({ reason: 'no_captions_in_language', available: ['en', 'es', 'en'] });

    // A slow track holds its request until WEB_PAGE_TIMEOUT_MS; the server answers others meanwhile.
    const slowYoutube = add({ url: 'https://www.youtube.com/watch?v=slowcaption' });
    const slowTrack = add({ url: `${site.origin}/videos/slow-track` });
    const health = await request(world.server, 'GET', '/healthz');
    expect(health.status).toBe(200);
    const [slowVideo, slowPage] = await Promise.all([slowYoutube, slowTrack]);
    expect(slowVideo.status).toBe(400);
    expect(slowVideo.body.error.message).toMatch(new RegExp(`did not send the captions within ${PAGE_TIMEOUT_MILLISECONDS} ms`));
    expect(slowPage.status).toBe(400);
    expect(slowPage.body.error.message).toMatch(new RegExp(`did not send the caption track within ${PAGE_TIMEOUT_MILLISECONDS} ms`));

    for (const language of ['"><script>', 'e', 'english please', 42]) {
      const refused = await add({ url: TECTONICS, language });
      expect(refused.status, String(language)).toBe(400);
      expect(refused.body.error.code).toBe('invalid_body');
    }
    expect(await documentCount(world)).toBe(before);
  });

  it(`adds ${AT_ONCE} videos sent at once, each as its own document`, async () => {
    await expectEachAddedAsItsOwnDocument(world, { url: TECTONICS }, AT_ONCE);
  });

  it("answers a chat through the official OpenAI client with a source that links to the video's moment", async () => {
    const assistant = await request(world.server, 'POST', '/api/assistants', {
      token: world.teacher.token,
      body: {
        name: 'Earth science tutor',
        prompt_template: 'Context:{context}\nQuestion:{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'debug-bypass',
          tools: [{ type: 'simple_rag', config: { collections: [String(world.knowledgeBaseId)], top_k: 2 } }],
        },
      },
    });
    expect(assistant.status, assistant.text).toBe(201);
    const client = new OpenAI({ apiKey: world.teacher.token, baseURL: `${world.server.baseUrl}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: `lamb_assistant.${assistant.body.id}`,
      messages: [{ role: 'user', content: 'What do mid-ocean ridges do to the plates?' }],
    });
    const prompt: string = JSON.parse(answer.choices[0]!.message.content!).messages.at(-1).content;
    expect(prompt).toContain('[6:42] Mid-ocean ridges push the plates apart');
    const sources = (answer as unknown as { sources: Array<Record<string, unknown>> }).sources;
    expect(sources[0]).toMatchObject({ tool: 'simple_rag', url: `${TECTONICS}&t=402s` });
  });
});
