// Proves the file-path rules: parseFilePath refuses every path that could mean another place (with invalid_parameter naming the rule, never echoing the value) and accepts the paths we hand out; sanitizeFileName turns any client name into a safe, readable name; collision suffixes and the inside-folder check behave.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import {
  displayFileName,
  FILE_NAME_LENGTH_MAXIMUM,
  fileExtension,
  isInsideFolder,
  parseFilePath,
  sanitizeFileName,
  withCollisionSuffix,
} from './file-paths.js';

function refusal(filePath: unknown): AppError {
  let thrown: unknown;
  try {
    parseFilePath(filePath);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `parseFilePath(${JSON.stringify(filePath)}) should throw`).toBeInstanceOf(AppError);
  return thrown as AppError;
}

describe('parseFilePath refuses hostile paths with invalid_parameter', () => {
  const hostile: ReadonlyArray<{ filePath: string; rule: RegExp }> = [
    { filePath: '../x', rule: /"\." or "\.\." segment|form <owner id>/ },
    { filePath: '1/../../etc/passwd', rule: /"\." or "\.\." segment/ },
    { filePath: '1/..', rule: /"\." or "\.\." segment/ },
    { filePath: '1/.', rule: /"\." or "\.\." segment/ },
    { filePath: '/etc/passwd', rule: /absolute/ },
    { filePath: '/1/x.txt', rule: /absolute/ },
    { filePath: '1/..%2f..%2fetc', rule: /percent-encoding/ },
    { filePath: '1/..%2F..%2Fetc', rule: /percent-encoding/ },
    { filePath: '1/%2e%2e/x', rule: /percent-encoding/ },
    { filePath: '1/%5c..%5cx', rule: /percent-encoding/ },
    { filePath: '1\\..\\x', rule: /backslash/ },
    { filePath: '1/x\u0000.txt', rule: /NUL or control/ },
    { filePath: '1/x\n.txt', rule: /NUL or control/ },
    { filePath: '1/x\u001b.txt', rule: /NUL or control/ },
    { filePath: '1/x\u0085.txt', rule: /NUL or control/ },
    { filePath: '1//x', rule: /empty segment/ },
    { filePath: '1/x/', rule: /empty segment/ },
    { filePath: './1/x', rule: /"\." or "\.\." segment/ },
    { filePath: '1/a/b.txt', rule: /form <owner id>\/<file name>/ },
    { filePath: 'x.txt', rule: /form <owner id>\/<file name>/ },
    { filePath: 'abc/x.txt', rule: /numeric id/ },
    { filePath: '01/x.txt', rule: /numeric id/ },
    { filePath: 'C:/x.txt', rule: /numeric id/ },
    { filePath: `1/${'a'.repeat(600)}`, rule: /longer than/ },
  ];

  it.each(hostile)('$filePath', ({ filePath, rule }) => {
    const error = refusal(filePath);
    expect(error.code).toBe('invalid_parameter');
    expect(error.status).toBe(400);
    expect(error.param).toBe('file_path');
    expect(error.message).toMatch(rule);
    expect(error.message).not.toContain('passwd');
  });

  it.each([undefined, null, 42, '', {}])('refuses the non-path %s', (value) => {
    expect(refusal(value).code).toBe('invalid_parameter');
  });
});

describe('parseFilePath accepts the paths the files API hands out', () => {
  it('splits <owner id>/<name>', () => {
    expect(parseFilePath('12/notes.txt')).toEqual({ filePath: '12/notes.txt', ownerId: 12, name: 'notes.txt' });
  });

  it('keeps spaces, dots inside names and letters of every script', () => {
    expect(parseFilePath('3/my notes v1.2.md').name).toBe('my notes v1.2.md');
    expect(parseFilePath('3/日本語 — résumé.txt').name).toBe('日本語 — résumé.txt');
    expect(parseFilePath('3/...txt').name).toBe('...txt');
  });

  it('looks up the NFC form, so a decomposed é finds the stored composed one', () => {
    expect(parseFilePath('3/re\u0301sume\u0301.txt').filePath).toBe('3/r\u00e9sum\u00e9.txt');
  });
});

describe('sanitizeFileName', () => {
  const cases: ReadonlyArray<[string, string]> = [
    ['notes.txt', 'notes.txt'],
    ['Notes.TXT', 'Notes.txt'],
    ['../../etc/passwd.txt', 'passwd.txt'],
    ['C:\\fakepath\\report.csv', 'report.csv'],
    ['..\\..\\x.md', 'x.md'],
    ['.hidden.txt', 'hidden.txt'],
    ['...', 'file'],
    ['.txt', 'txt'],
    ['', 'file'],
    ['a%2f..%2fb.txt', 'a_2f.._2fb.txt'],
    ['what?*<>|:"#.json', 'what________.json'],
    ['tab\there\u0000nul.txt', 'tab herenul.txt'],
    ['invoice\u202Etxt.exe.txt', 'invoicetxt.exe.txt'],
    ['zero\u200Bwidth.txt', 'zerowidth.txt'],
    ['  spaced   out  .md', 'spaced out.md'],
    ['trailing dots....txt', 'trailing dots....txt'],
    ['Résumé — 日本語.txt', 'Résumé — 日本語.txt'],
    ['re\u0301sume\u0301.txt', 'r\u00e9sum\u00e9.txt'],
    ['emoji 🎓.md', 'emoji 🎓.md'],
  ];

  it.each(cases)('%j → %j', (input, expected) => {
    expect(sanitizeFileName(input)).toBe(expected);
  });

  it('never produces a name that parseFilePath refuses', () => {
    const nasty = ['..', '.', '/', '\\', '%2e%2e', 'a/b/c.txt', '\u0000', '\u0085x.txt', ' / ', 'x\\', '%', '..%2f', 'ok.txt'];
    for (const input of nasty) expect(() => parseFilePath(`1/${sanitizeFileName(input)}`), JSON.stringify(input)).not.toThrow();
  });

  it(`caps the name at ${FILE_NAME_LENGTH_MAXIMUM} characters and keeps the extension`, () => {
    const name = sanitizeFileName(`${'x'.repeat(500)}.json`);
    expect(name.length).toBe(FILE_NAME_LENGTH_MAXIMUM);
    expect(name.endsWith('.json')).toBe(true);
  });

  it('never splits a surrogate pair when it caps a name', () => {
    const name = sanitizeFileName(`${'🎓'.repeat(200)}.txt`);
    expect(name.length).toBeLessThanOrEqual(FILE_NAME_LENGTH_MAXIMUM);
    expect(name).toMatch(/^(?:🎓)+\.txt$/u);
  });
});

describe('withCollisionSuffix', () => {
  it('adds -2, -3 … before the extension', () => {
    expect(withCollisionSuffix('notes.txt', 1)).toBe('notes.txt');
    expect(withCollisionSuffix('notes.txt', 2)).toBe('notes-2.txt');
    expect(withCollisionSuffix('notes.v1.txt', 3)).toBe('notes.v1-3.txt');
    expect(withCollisionSuffix('README', 2)).toBe('README-2');
  });

  it('stays within the name limit for the longest names', () => {
    const longest = sanitizeFileName(`${'y'.repeat(500)}.txt`);
    const suffixed = withCollisionSuffix(longest, 12);
    expect(suffixed.length).toBeLessThanOrEqual(FILE_NAME_LENGTH_MAXIMUM);
    expect(suffixed.endsWith('-12.txt')).toBe(true);
  });
});

describe('fileExtension and displayFileName', () => {
  it('reads the lower-case extension, none for dot files', () => {
    expect(fileExtension('a.TXT')).toBe('txt');
    expect(fileExtension('archive.tar.gz')).toBe('gz');
    expect(fileExtension('.bashrc')).toBe('');
    expect(fileExtension('README')).toBe('');
  });

  it('shows the client name without folders or control characters', () => {
    expect(displayFileName('C:\\docs\\Ünïcode notes.txt')).toBe('Ünïcode notes.txt');
    expect(displayFileName('a/b/\u0000x\u202E.txt')).toBe('x.txt');
  });

  it('cuts a name past 255 characters in its base and keeps its extension', () => {
    expect(displayFileName(`x${'.'.repeat(78_000)}x.txt`)).toBe(`x${'.'.repeat(250)}.txt`);
    expect(displayFileName(`${'a'.repeat(300)}.${'b'.repeat(40)}`)).toBe(`${'a'.repeat(238)}.${'b'.repeat(16)}`);
    expect(displayFileName('a'.repeat(300))).toBe('a'.repeat(255));
    expect(displayFileName('a'.repeat(255))).toBe('a'.repeat(255));
  });
});

describe('isInsideFolder', () => {
  const folder = path.resolve('/data/files/3');

  it('is true only strictly inside', () => {
    expect(isInsideFolder(folder, path.join(folder, 'x.txt'))).toBe(true);
    expect(isInsideFolder(folder, path.join(folder, '..x.txt'))).toBe(true);
    expect(isInsideFolder(folder, folder)).toBe(false);
    expect(isInsideFolder(folder, path.resolve('/data/files/30/x.txt'))).toBe(false);
    expect(isInsideFolder(folder, path.resolve('/data/files/x.txt'))).toBe(false);
    expect(isInsideFolder(folder, path.resolve('/etc/passwd'))).toBe(false);
  });
});
