// Proves the upload content rules: only .txt/.md/.json/.csv/.html are accepted, and bytes are judged as they stream in — NUL bytes, invalid UTF-8 and binary control characters are refused, JSON must parse, HTML must hold markup — each refusal an invalid_file naming the reason, even when the evidence is split across chunks.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { acceptedFileType, FileContentInspector, type InvalidFileReason } from './file-content.js';

const encoder = new TextEncoder();

/** Runs the inspector over `chunks` as an upload would; returns the refusal, or undefined when accepted. */
function inspect(fileName: string, chunks: ReadonlyArray<Uint8Array | string>): AppError | undefined {
  try {
    const inspector = new FileContentInspector(acceptedFileType(fileName));
    for (const chunk of chunks) inspector.inspect(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
    inspector.finish();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
}

function expectRefused(error: AppError | undefined, reason: InvalidFileReason): void {
  expect(error, `refused for ${reason}`).toBeDefined();
  expect(error!.code).toBe('invalid_file');
  expect(error!.status).toBe(400);
  expect(error!.param).toBe('file');
  expect(error!.details).toEqual({ reason });
}

const PNG_SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);

describe('acceptedFileType', () => {
  it.each([
    ['a.txt', 'text/plain'],
    ['a.md', 'text/markdown'],
    ['a.json', 'application/json'],
    ['a.csv', 'text/csv'],
    ['a.html', 'text/html'],
    ['A.HTML', 'text/html'],
  ])('accepts %s as %s', (name, contentType) => {
    expect(acceptedFileType(name).contentType).toBe(contentType);
  });

  it.each(['a.png', 'a.pdf', 'a.exe', 'a.htm', 'a.txt.exe', 'README', 'a.'])('refuses %s naming the accepted extensions', (name) => {
    const error = inspect(name, ['text']);
    expectRefused(error, 'unsupported_type');
    expect(error!.message).toContain('.txt, .md, .json, .csv, .html');
  });
});

describe('FileContentInspector accepts text of each type', () => {
  it.each([
    ['notes.txt', ['plain text\r\nwith\ttabs and a form feed \f\n']],
    ['notes.md', ['# Title\n\n- ünïcödé 日本語 🎓\n']],
    ['data.json', ['{"a": [1, 2', ', {"b": "ç"}]}']],
    ['table.csv', ['name,score\n', 'Ana,3\n']],
    ['page.html', ['<!doctype html><p>Hi</p>']],
    ['fragment.html', ['Intro text <', 'b>bold</b>']],
    ['bom.json', ['\ufeff{"with": "bom"}']],
  ])('%s', (name, chunks) => {
    expect(inspect(name, chunks)).toBeUndefined();
  });

  it('accepts a multi-byte character split across two chunks', () => {
    const bytes = encoder.encode('café 🎓');
    expect(inspect('split.txt', [bytes.subarray(0, 4), bytes.subarray(4, 8), bytes.subarray(8)])).toBeUndefined();
  });
});

describe('FileContentInspector refuses what is not text of its type', () => {
  it('a PNG renamed .txt: binary_content, naming the NUL byte', () => {
    const error = inspect('photo.txt', [PNG_SIGNATURE]);
    expectRefused(error, 'binary_content');
    expect(error!.message).toMatch(/NUL byte at byte 8/);
  });

  it('a NUL byte in a later chunk, with its offset in the whole file', () => {
    expect(inspect('late.txt', ['0123456789', Uint8Array.from([0x41, 0x00])])!.message).toMatch(/at byte 11/);
  });

  it('Latin-1 bytes: not_utf8', () => {
    expectRefused(inspect('latin1.txt', [Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a])]), 'not_utf8');
  });

  it('a UTF-8 sequence cut off at the end of the file: not_utf8', () => {
    expectRefused(inspect('cut.txt', ['ok', Uint8Array.from([0xe2, 0x82])]), 'not_utf8');
  });

  it('UTF-16 text: binary_content (it is full of NUL bytes)', () => {
    expectRefused(inspect('utf16.txt', [Uint8Array.from([0xff, 0xfe, 0x41, 0x00, 0x42, 0x00])]), 'binary_content');
  });

  it('a binary control character: control_characters, named by code point', () => {
    const error = inspect('bell.txt', ['ring \u0007 ring']);
    expectRefused(error, 'control_characters');
    expect(error!.message).toContain('U+0007');
  });

  it('an empty file: empty', () => {
    expectRefused(inspect('empty.txt', []), 'empty');
  });

  it.each([
    ['truncated', ['{"a": [1, 2']],
    ['trailing comma', ['{"a": 1,}']],
    ['plain text', ['hello']],
    ['whitespace only', ['   \n']],
  ])('invalid JSON (%s) in a .json file: invalid_json', (_label, chunks) => {
    const error = inspect('data.json', chunks);
    expectRefused(error, 'invalid_json');
    expect(error!.message).not.toContain('hello');
  });

  it('plain text named .html: not_html', () => {
    expectRefused(inspect('page.html', ['just words, 3 < 4 and 5 > 2']), 'not_html');
  });
});
