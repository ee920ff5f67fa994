/**
 * Proves how a YouTube address names its video and which caption track is read: every address
 * form a teacher copies (watch, youtu.be, shorts, embed, live, mobile) gives the video id and
 * anything else none; a `<transcript_list>` as YouTube sends it gives its tracks; the language asked
 * for wins (exactly, else by its primary language), a person's captions come before automatic ones,
 * and a missing language is refused listing those there are.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.js';
import { captionTracksOf, chosenTrack, youtubeVideoId } from './youtube-captions.js';

const LIST = `<?xml version="1.0" encoding="utf-8" ?><transcript_list docid="123"><track id="0" name="" lang_code="en" lang_original="English" lang_translated="English" kind="asr"/><track id="1" name="Lecture &amp; notes" lang_code="en" lang_original="English" lang_translated="English"/><track id="2" name="" lang_code="pt-BR" lang_original="Português (Brasil)" lang_translated="Portuguese (Brazil)" lang_default="true"/></transcript_list>`;

describe('YouTube caption tracks', () => {
  it('finds the video id in every address form, and none elsewhere', () => {
    const forms = [
      'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s',
      'https://youtube.com/watch?feature=share&v=dQw4w9WgXcQ',
      'https://m.youtube.com/watch?v=dQw4w9WgXcQ',
      'https://youtu.be/dQw4w9WgXcQ?si=abc',
      'https://www.youtube.com/shorts/dQw4w9WgXcQ',
      'https://www.youtube.com/embed/dQw4w9WgXcQ?start=3',
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
      'https://www.youtube.com/live/dQw4w9WgXcQ',
    ];
    for (const form of forms) expect(youtubeVideoId(new URL(form)), form).toBe('dQw4w9WgXcQ');
    const others = [
      'https://www.youtube.com/@channel',
      'https://www.youtube.com/watch?v=short',
      'https://www.youtube.com/watch?v=dQw4w9WgXcQ<script>',
      'https://notyoutube.com/watch?v=dQw4w9WgXcQ',
      'https://example.org/embed/dQw4w9WgXcQ',
    ];
    for (const other of others) expect(youtubeVideoId(new URL(other)), other).toBeUndefined();
  });

  it('reads the tracks of a transcript list, with names decoded and automatic ones marked', async () => {
    expect(await captionTracksOf(LIST)).toEqual([
      { languageCode: 'en', languageName: 'English', name: '', automatic: true, isDefault: false },
      { languageCode: 'en', languageName: 'English', name: 'Lecture & notes', automatic: false, isDefault: false },
      { languageCode: 'pt-BR', languageName: 'Portuguese (Brazil)', name: '', automatic: false, isDefault: true },
    ]);
    expect(await captionTracksOf('')).toEqual([]);
    expect(await captionTracksOf('<transcript_list docid="1"></transcript_list>')).toEqual([]);
  });

  it("chooses the language asked for, a person's captions first, else the default track", async () => {
    const tracks = await captionTracksOf(LIST);
    expect(chosenTrack(tracks, 'en')).toMatchObject({ name: 'Lecture & notes', automatic: false });
    expect(chosenTrack(tracks, 'EN-us')).toMatchObject({ languageCode: 'en', automatic: false });
    expect(chosenTrack(tracks, 'pt')).toMatchObject({ languageCode: 'pt-BR' });
    expect(chosenTrack(tracks, undefined)).toMatchObject({ languageCode: 'pt-BR' });
    expect(chosenTrack([tracks[0]!], undefined)).toMatchObject({ automatic: true });
    expect(() => chosenTrack(tracks, 'fr')).toThrow(
      'No captions in this language (fr); the video has captions in en (English, automatic), en (English), pt-BR (Portuguese (Brazil)).',
    );
    expect(() => chosenTrack([], 'fr')).toThrow(AppError);
    expect(() => chosenTrack([], undefined)).toThrow(/This video has no captions/);
  });
});
