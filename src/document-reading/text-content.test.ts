// Proves that plain text, checked as bytes (UTF-8 validity where the bytes lie, control characters
// as single bytes), gets the verdict of decoding each chunk as it arrives and searching its text,
// wherever the chunks are cut: generated inputs mixing ASCII, two-, three- and
// four-byte characters, control characters, NUL bytes and broken sequences, each split at random.
import { describe, expect, it } from 'vitest';
import { seededRandom, type SeededRandom } from '../../test/support/seeded-random.js';
import { TextContentInspector } from './text-content.js';

const PIECES: ReadonlyArray<readonly [number, readonly number[]]> = [
  [40, [0x61]],
  [10, [0x0a]],
  [4, [0x09]],
  [8, [0xc3, 0xa9]],
  [6, [0xe2, 0x82, 0xac]],
  [4, [0xf0, 0x9f, 0x99, 0x82]],
  [1, [0x07]],
  [1, [0x1b]],
  [1, [0x00]],
  [1, [0xc3]],
  [1, [0x80]],
  [1, [0xe2, 0x82]],
  [1, [0xff]],
  [1, [0xed, 0xa0, 0x80]],
  [1, [0xc0, 0xaf]],
];

function generatedBytes(random: SeededRandom): Uint8Array {
  const bytes: number[] = [];
  const length = random.integer(0, 40);
  // Most inputs are clean text, so the clean path is exercised as much as the refusals.
  const clean = random.chance(0.5);
  for (let index = 0; index < length; index += 1) bytes.push(...(clean ? random.weighted(PIECES.slice(0, 6)) : random.weighted(PIECES)));
  return Uint8Array.from(bytes);
}

function splitAtRandom(random: SeededRandom, bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    const end = Math.min(bytes.length, start + random.integer(1, 6));
    chunks.push(bytes.subarray(start, end));
    start = end;
  }
  return chunks;
}

/** What the check must say: each chunk, as it arrives, searched for NUL, decoded, and its text searched. */
function expectedVerdict(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let seen = 0;
  for (const [index, chunk] of [...chunks, new Uint8Array(0)].entries()) {
    if (chunk.includes(0)) return 'binary_content';
    seen += chunk.length;
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: index < chunks.length });
    } catch {
      return 'not_utf8';
    }
    const control = /[\u0001-\u0008\u000e-\u001f]/.exec(text);
    if (control) return `control_characters U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return seen === 0 ? 'empty' : 'accepted';
}

function verdict(chunks: readonly Uint8Array[]): string {
  const inspector = new TextContentInspector({
    kind: 'text',
    acceptedList: '.txt',
    refuse: (reason, message) => new Error(reason === 'control_characters' ? `${reason} ${/U\+[0-9A-F]{4}/.exec(message)![0]}` : reason),
  });
  try {
    for (const chunk of chunks) inspector.inspect(chunk);
    inspector.finish();
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('plain text checked as bytes', () => {
  it('says what decoding each chunk as it arrives says, wherever the chunks are cut', () => {
    const random = seededRandom(20261205);
    const seen = new Set<string>();
    for (let round = 0; round < 3_000; round += 1) {
      const bytes = generatedBytes(random);
      const chunks = splitAtRandom(random, bytes);
      const expected = expectedVerdict(chunks);
      seen.add(expected.split(' ')[0]!);
      expect(verdict(chunks), chunks.map((chunk) => Buffer.from(chunk).toString('hex')).join(' | ')).toBe(expected);
    }
    expect([...seen].sort()).toEqual(['accepted', 'binary_content', 'control_characters', 'empty', 'not_utf8']);
  });

  it('accepts a character split across three chunks, and refuses one left unfinished at the end', () => {
    expect(verdict([Uint8Array.from([0x61, 0xf0]), Uint8Array.from([0x9f, 0x99]), Uint8Array.from([0x82, 0x0a])])).toBe('accepted');
    expect(verdict([Uint8Array.from([0x61, 0xf0]), Uint8Array.from([0x9f, 0x99])])).toBe('not_utf8');
  });
});
