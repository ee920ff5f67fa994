import { describe, expect, it } from 'vitest';
import { CAPTION_SECTION_CHARACTERS, captionFormatOf, captionSections, momentUrl, spokenTime } from './captions.js';

describe('caption sections', () => {
  it('say the time as a transcript does, with hours only past an hour', () => {
    expect(spokenTime(0)).toBe('0:00');
    expect(spokenTime(725)).toBe('12:05');
    expect(spokenTime(3723)).toBe('1:02:03');
  });

  it('link YouTube at its own t= parameter and any other video at a media fragment, keeping a fragment already there', () => {
    expect(momentUrl('https://www.youtube.com/watch?v=abc', 90)).toBe('https://www.youtube.com/watch?v=abc&t=90s');
    expect(momentUrl('https://youtu.be/abc', 5)).toBe('https://youtu.be/abc?t=5s');
    expect(momentUrl('https://media.school.test/a.mp4', 12)).toBe('https://media.school.test/a.mp4#t=12');
    expect(momentUrl('https://media.school.test/a.mp4#chapter-2', 12)).toBe('https://media.school.test/a.mp4#chapter-2');
    expect(momentUrl('not a url', 12)).toBe('not a url');
  });

  it('close a section at about its character size and after a minute of video, never merging distant cues', () => {
    const cue = (second: number, text: string) =>
      `00:${String(Math.floor(second / 60)).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}.000 --> 00:59:59.000\n${text}\n`;
    const long = 'word '.repeat(CAPTION_SECTION_CHARACTERS / 5);
    const sections = captionSections(
      `WEBVTT\n\n${cue(1, long)}\n${cue(2, 'after the long one')}\n${cue(5, 'close by')}\n${cue(70, 'a minute later')}`,
    );
    expect(sections.map((section) => section.startSeconds)).toEqual([1, 2, 70]);
    expect(sections[1]!.text).toBe('[0:02] after the long one close by');
  });
});

describe('caption format check', () => {
  it('tells WebVTT and SubRip by their cue time lines, and refuses text without one', () => {
    expect(captionFormatOf('\uFEFFWEBVTT\nKind: captions\n\n00:00:01.000 --> 00:00:02.000\nHi\n')).toBe('vtt');
    expect(captionFormatOf('1\n00:00:01,000 --> 00:00:02,000\nHi\n')).toBe('srt');
    expect(captionFormatOf('WEBVTT\n\nno time line here\n')).toBeUndefined();
    expect(captionFormatOf('<html><body>Sorry</body></html>')).toBeUndefined();
    expect(captionFormatOf('')).toBeUndefined();
  });
});
