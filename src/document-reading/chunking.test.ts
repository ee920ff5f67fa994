// Proves the chunker: chunks are never empty and never longer than chunkSize, consecutive chunks overlap, cuts prefer paragraphs, then lines, sentences and words, and never split a surrogate pair or a grapheme cluster; chunks are numbered across the document, keep their section's page and heading, and come out the same every time; bad settings are refused with invalid_chunking.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { asAppError } from '../ingestion/reading-refusals.js';
import { DocumentReadingError } from './document-reading-error.js';
import {
  chunkMetadata,
  chunkSections,
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
  CHUNK_SIZE_MAXIMUM,
  CHUNK_SIZE_MINIMUM,
  resolveChunkingOptions,
  splitText,
  type ChunkingOptions,
} from './chunking.js';

/** Deterministic prose: `count` sentences of a few numbered words each. */
function prose(count: number): string {
  const sentences: string[] = [];
  for (let index = 0; index < count; index += 1) sentences.push(`Sentence ${index} talks about topic ${index % 7} briefly.`);
  return sentences.join(' ');
}

/** Words only, no sentence ends or line breaks: merging happens at the word level. */
function words(count: number): string {
  return Array.from({ length: count }, (_, index) => `word${index}`).join(' ');
}

/** The longest end of `previous` that `next` starts with. */
function overlapLength(previous: string, next: string): number {
  for (let length = Math.min(previous.length, next.length); length > 0; length -= 1) {
    if (next.startsWith(previous.slice(previous.length - length))) return length;
  }
  return 0;
}

function expectChunkInvariants(chunks: readonly string[], options: Required<ChunkingOptions>): void {
  for (const chunk of chunks) {
    expect(chunk.length).toBeGreaterThan(0);
    expect(chunk.length).toBeLessThanOrEqual(options.chunkSize);
    expect(chunk).toBe(chunk.trim());
    expect(chunk).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  }
}

function refusal(options: ChunkingOptions): AppError {
  try {
    resolveChunkingOptions(options);
  } catch (error) {
    expect(error).toBeInstanceOf(DocumentReadingError);
    // What clients see: the AppError the services make of it.
    const appError = asAppError(error);
    expect(appError).toBeInstanceOf(AppError);
    return appError as AppError;
  }
  throw new Error(`expected ${JSON.stringify(options)} to be refused`);
}

describe('chunking options', () => {
  it('default to 1000 characters with 200 of overlap', () => {
    expect(resolveChunkingOptions()).toEqual({ chunkSize: 1000, chunkOverlap: 200 });
    expect([DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_OVERLAP]).toEqual([1000, 200]);
  });

  it('accept a knowledge base’s own settings within the bounds', () => {
    expect(resolveChunkingOptions({ chunkSize: CHUNK_SIZE_MINIMUM, chunkOverlap: 0 })).toEqual({ chunkSize: 100, chunkOverlap: 0 });
    expect(resolveChunkingOptions({ chunkSize: CHUNK_SIZE_MAXIMUM, chunkOverlap: 4000 })).toEqual({ chunkSize: 8000, chunkOverlap: 4000 });
  });

  it.each([
    [{ chunkSize: 99 }, 'chunk_size'],
    [{ chunkSize: 8001 }, 'chunk_size'],
    [{ chunkSize: 500.5 }, 'chunk_size'],
    [{ chunkSize: Number.NaN }, 'chunk_size'],
    [{ chunkSize: 500, chunkOverlap: -1 }, 'chunk_overlap'],
    [{ chunkSize: 500, chunkOverlap: 2.5 }, 'chunk_overlap'],
    [{ chunkSize: 500, chunkOverlap: 500 }, 'chunk_overlap'],
    [{ chunkSize: 500, chunkOverlap: 600 }, 'chunk_overlap'],
    [{ chunkSize: 500, chunkOverlap: 251 }, 'chunk_overlap'],
    [{ chunkOverlap: 1000 }, 'chunk_overlap'],
  ])('refuse %j with invalid_chunking naming %s', (options, param) => {
    const error = refusal(options);
    expect(error.code).toBe('invalid_chunking');
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
  });

  it('say what the bounds are when the overlap is too large', () => {
    expect(refusal({ chunkSize: 500, chunkOverlap: 500 }).message).toBe(
      'The chunk overlap (500) must be smaller than the chunk size: at most half of it, 250 for a chunk size of 500.',
    );
  });

  it('are checked by chunkSections and splitText too', () => {
    expect(() => chunkSections([{ text: 'x' }], { chunkSize: 10 })).toThrow(DocumentReadingError);
    expect(() => splitText('x', { chunkOverlap: 900 })).toThrow(DocumentReadingError);
  });
});

describe('splitText', () => {
  it('keeps a text that fits as one chunk, trimmed', () => {
    expect(splitText('  A short note.\n\n')).toEqual(['A short note.']);
    const exact = 'x'.repeat(1000);
    expect(splitText(exact)).toEqual([exact]);
  });

  it('gives no chunk for blank text', () => {
    expect(splitText('')).toEqual([]);
    expect(splitText(' \n\n \t ')).toEqual([]);
  });

  it('never makes a chunk longer than chunkSize or an empty one, at the defaults and at the bounds', () => {
    const text = `${prose(300)}\n\n${words(400)}\n${'y'.repeat(2500)}\n\n\n\n${prose(50)}`;
    for (const options of [
      { chunkSize: 1000, chunkOverlap: 200 },
      { chunkSize: 100, chunkOverlap: 50 },
      { chunkSize: 100, chunkOverlap: 0 },
      { chunkSize: 8000, chunkOverlap: 4000 },
      { chunkSize: 333, chunkOverlap: 97 },
    ]) {
      const chunks = splitText(text, options);
      expect(chunks.length).toBeGreaterThan(0);
      expectChunkInvariants(chunks, options);
    }
  });

  it('starts each chunk with the end of the one before, up to chunkOverlap characters', () => {
    const options = { chunkSize: 200, chunkOverlap: 60 };
    const chunks = splitText(words(300), options);
    expect(chunks.length).toBeGreaterThan(5);
    expectChunkInvariants(chunks, options);
    for (let index = 1; index < chunks.length; index += 1) {
      const overlap = overlapLength(chunks[index - 1]!, chunks[index]!);
      expect(overlap, `overlap between chunks ${index - 1} and ${index}`).toBeGreaterThan(40);
      expect(overlap).toBeLessThanOrEqual(60);
    }
  });

  it('overlaps whole sentences when cutting prose at sentence ends', () => {
    const options = { chunkSize: 300, chunkOverlap: 120 };
    const chunks = splitText(prose(40), options);
    expectChunkInvariants(chunks, options);
    for (let index = 1; index < chunks.length; index += 1) {
      expect(chunks[index]).toMatch(/^Sentence \d+/);
      expect(chunks[index - 1]).toMatch(/briefly\.$/);
      expect(overlapLength(chunks[index - 1]!, chunks[index]!)).toBeGreaterThan(0);
    }
  });

  it('with no overlap, the chunks put back together are the text', () => {
    const text = words(500);
    const chunks = splitText(text, { chunkSize: 150, chunkOverlap: 0 });
    expect(chunks.join(' ')).toBe(text);
  });

  it('cuts at paragraph breaks before lines, sentences or words', () => {
    const paragraphs = ['First paragraph. '.repeat(8).trim(), 'Second paragraph. '.repeat(8).trim(), 'Third paragraph. '.repeat(8).trim()];
    expect(paragraphs.every((paragraph) => paragraph.length > 100 && paragraph.length <= 150)).toBe(true);
    expect(splitText(paragraphs.join('\n\n'), { chunkSize: 200, chunkOverlap: 50 })).toEqual(paragraphs);
  });

  it('cuts a paragraph too long for a chunk at its lines, then at its sentences', () => {
    const lines = Array.from({ length: 6 }, (_, index) => `Line ${index} of the poem, long enough to matter here.`);
    const chunks = splitText(lines.join('\n'), { chunkSize: 120, chunkOverlap: 0 });
    expect(chunks).toEqual([`${lines[0]}\n${lines[1]}`, `${lines[2]}\n${lines[3]}`, `${lines[4]}\n${lines[5]}`]);
  });

  it('cuts a run of characters without spaces between characters', () => {
    const options = { chunkSize: 100, chunkOverlap: 20 };
    const chunks = splitText('z'.repeat(450), options);
    expectChunkInvariants(chunks, options);
    expect(chunks[0]).toBe('z'.repeat(100));
    expect(chunks.length).toBe(6);
  });

  it('never splits an emoji’s surrogate pair, with or without overlap', () => {
    const text = '🎓'.repeat(301);
    for (const options of [
      { chunkSize: 101, chunkOverlap: 0 },
      { chunkSize: 101, chunkOverlap: 33 },
    ]) {
      const chunks = splitText(text, options);
      expectChunkInvariants(chunks, options);
      for (const chunk of chunks) expect(chunk).toMatch(/^(?:🎓)+$/u);
    }
    expect(splitText(text, { chunkSize: 101, chunkOverlap: 0 }).join('')).toBe(text);
  });

  it('keeps grapheme clusters whole: a family emoji, a flag, an accented letter', () => {
    const family = '👩‍👩‍👧‍👦';
    const text = `${family}🇪🇸é`.repeat(60);
    const options = { chunkSize: 100, chunkOverlap: 30 };
    const chunks = splitText(text, options);
    expectChunkInvariants(chunks, options);
    for (const chunk of chunks) expect(chunk).toMatch(/^(?:👩‍👩‍👧‍👦|🇪🇸|é)+$/u);
  });

  it('cuts a grapheme cluster longer than a chunk between its code points', () => {
    const zalgo = `e${'\u0301'.repeat(250)}`;
    const options = { chunkSize: 100, chunkOverlap: 0 };
    const chunks = splitText(zalgo, options);
    expectChunkInvariants(chunks, options);
    expect(chunks.join('')).toBe(zalgo);
  });

  it('cuts a long run without separators in linear time (two million characters)', () => {
    const text = `${'🎓x'.repeat(1_000_000)}é`;
    const options = { chunkSize: 1000, chunkOverlap: 200 };
    const chunks = splitText(text, options);
    expectChunkInvariants(chunks, options);
    // Each chunk advances by about chunkSize − chunkOverlap characters.
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil((text.length - 1000) / 801));
    expect(chunks.length).toBeLessThanOrEqual(Math.ceil(text.length / 798));
    for (let index = 1; index < chunks.length; index += 100)
      expect(overlapLength(chunks[index - 1]!, chunks[index]!)).toBeGreaterThanOrEqual(198);
    expect(chunks.at(-1)!.endsWith('xé')).toBe(true);
  });

  it('keeps an emoji whole where it falls on the boundary of a segmenting window', () => {
    for (const prefix of ['', 'a', 'ab']) {
      const text = prefix + '🎓'.repeat(1000);
      const chunks = splitText(text, { chunkSize: 100, chunkOverlap: 0 });
      expect(chunks.join('')).toBe(text);
      expectChunkInvariants(chunks, { chunkSize: 100, chunkOverlap: 0 });
    }
  });

  it('handles text in scripts without spaces, such as Chinese', () => {
    const text = '光合作用是植物利用光能把二氧化碳和水转化为有机物的过程。'.repeat(20);
    const options = { chunkSize: 100, chunkOverlap: 20 };
    const chunks = splitText(text, options);
    expectChunkInvariants(chunks, options);
    expect(chunks.length).toBeGreaterThan(5);
  });

  it('gives the same chunks every time', () => {
    const text = `${prose(120)}\n\n${'🎓 emoji '.repeat(100)}`;
    expect(splitText(text, { chunkSize: 250, chunkOverlap: 80 })).toEqual(splitText(text, { chunkSize: 250, chunkOverlap: 80 }));
  });
});

describe('chunkSections', () => {
  const sections = [
    { text: prose(30), page: 1 },
    { text: 'A short second page.', page: 2 },
    { text: `# Methods\n\n${prose(12)}`, heading: 'Report > Methods' },
  ];

  it('numbers chunks across the whole document and gives each the count', () => {
    const chunks = chunkSections(sections, { chunkSize: 300, chunkOverlap: 60 });
    expect(chunks.length).toBeGreaterThan(4);
    chunks.forEach((chunk, index) => {
      expect(chunk.chunkIndex).toBe(index);
      expect(chunk.chunkCount).toBe(chunks.length);
      expect(chunk.text.length).toBeLessThanOrEqual(300);
    });
  });

  it('keeps the page and heading of the section each chunk comes from, and never joins two sections', () => {
    const chunks = chunkSections(sections, { chunkSize: 300, chunkOverlap: 60 });
    const pageOne = chunks.filter((chunk) => chunk.page === 1);
    expect(pageOne.length).toBeGreaterThan(1);
    expect(pageOne.every((chunk) => sections[0]!.text.includes(chunk.text))).toBe(true);
    expect(chunks.filter((chunk) => chunk.page === 2)).toEqual([
      { text: 'A short second page.', page: 2, chunkIndex: pageOne.length, chunkCount: chunks.length },
    ]);
    const methods = chunks.filter((chunk) => chunk.heading === 'Report > Methods');
    expect(methods[0]!.text.startsWith('# Methods')).toBe(true);
    expect(methods.every((chunk) => chunk.page === undefined && !('page' in chunk))).toBe(true);
    expect(pageOne.length + 1 + methods.length).toBe(chunks.length);
  });

  it('uses 1000/200 by default', () => {
    const chunks = chunkSections([{ text: prose(200) }]);
    expect(chunks.every((chunk) => chunk.text.length <= 1000)).toBe(true);
    expect(chunks.some((chunk) => chunk.text.length > 800)).toBe(true);
  });

  it('skips blank sections and returns nothing for nothing', () => {
    expect(chunkSections([])).toEqual([]);
    expect(chunkSections([{ text: '  ' }, { text: 'Only this.', page: 4 }])).toEqual([
      { text: 'Only this.', page: 4, chunkIndex: 0, chunkCount: 1 },
    ]);
  });
});

describe('chunkMetadata', () => {
  it('holds filename, document_id, chunk_index, chunk_count and source_url', () => {
    const [chunk] = chunkSections([{ text: 'Plain text.' }]);
    expect(chunkMetadata(chunk!, { documentId: 42, fileName: 'notes.txt', sourceUrl: 'https://example.org/notes.txt' })).toEqual({
      filename: 'notes.txt',
      document_id: 42,
      chunk_index: 0,
      chunk_count: 1,
      source_url: 'https://example.org/notes.txt',
    });
  });

  it('adds the page, and points the source URL at that page of a PDF', () => {
    const chunks = chunkSections([
      { text: 'Page one.', page: 1 },
      { text: 'Page three.', page: 3, heading: 'Results' },
    ]);
    expect(chunkMetadata(chunks[1]!, { documentId: 7, fileName: 'paper.pdf', sourceUrl: 'https://example.org/paper.pdf' })).toEqual({
      filename: 'paper.pdf',
      document_id: 7,
      chunk_index: 1,
      chunk_count: 2,
      page: 3,
      heading: 'Results',
      source_url: 'https://example.org/paper.pdf#page=3',
    });
  });

  it('leaves a URL that already has a fragment alone, and a missing URL null', () => {
    const [chunk] = chunkSections([{ text: 'Page two.', page: 2 }]);
    expect(chunkMetadata(chunk!, { documentId: 1, fileName: 'a.pdf', sourceUrl: 'https://example.org/a.pdf#view=fit' }).source_url).toBe(
      'https://example.org/a.pdf#view=fit',
    );
    expect(chunkMetadata(chunk!, { documentId: 1, fileName: 'a.pdf' }).source_url).toBeNull();
    expect(chunkMetadata(chunk!, { documentId: 1, fileName: 'a.pdf', sourceUrl: null }).source_url).toBeNull();
  });
});
