// Proves that docs/errors.md lists every error code of the catalogue in src/errors/app-error.ts, no code the
// catalogue lacks, each once, with the catalogue's status and type and a sentence saying when it happens: clients
// branch on these codes, so the page they read must not drift from what the server sends.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../src/errors/app-error.js';

const ERRORS_PAGE = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

interface DocumentedError {
  code: string;
  status: number;
  type: string;
  when: string;
  line: number;
}

/** A table row whose first cell is one code in backticks: `| `code` | status | `type` | when |`. */
const CODE_ROW = /^\|\s*`([^`]*)`\s*\|/;

function cellsOf(row: string): string[] {
  // Rows hold no escaped pipes, so splitting on `|` gives the cells; the first and last pieces are the row's edges.
  return row
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

function unquoted(cell: string): string {
  return cell.startsWith('`') && cell.endsWith('`') ? cell.slice(1, -1) : cell;
}

function documentedErrors(markdown: string): DocumentedError[] {
  return markdown.split('\n').flatMap((text, index) => {
    if (!CODE_ROW.test(text)) return [];
    const [code = '', status = '', type = '', when = ''] = cellsOf(text);
    return [{ code: unquoted(code), status: Number(status), type: unquoted(type), when, line: index + 1 }];
  });
}

describe('docs/errors.md and the error catalogue', () => {
  const documented = documentedErrors(readFileSync(ERRORS_PAGE, 'utf8'));
  const catalogueCodes = Object.keys(catalogue).sort();

  it('lists every code of the catalogue', () => {
    const listed = new Set(documented.map((entry) => entry.code));
    expect(catalogueCodes.filter((code) => !listed.has(code))).toEqual([]);
  });

  it('lists no code the catalogue does not have', () => {
    expect(documented.filter((entry) => !Object.hasOwn(catalogue, entry.code)).map((entry) => `line ${entry.line}: ${entry.code}`)).toEqual(
      [],
    );
  });

  it('lists each code once', () => {
    const repeated = documented.filter((entry, index) => documented.findIndex((other) => other.code === entry.code) !== index);
    expect(repeated.map((entry) => `line ${entry.line}: ${entry.code}`)).toEqual([]);
  });

  it("gives each code the catalogue's status and type", () => {
    const differences = documented.flatMap((entry) => {
      if (!Object.hasOwn(catalogue, entry.code)) return [];
      const expected = catalogue[entry.code as keyof typeof catalogue];
      return entry.status === expected.status && entry.type === expected.type
        ? []
        : [
            `line ${entry.line}: ${entry.code} is documented as ${entry.status} ${entry.type}, the catalogue says ${expected.status} ${expected.type}`,
          ];
    });
    expect(differences).toEqual([]);
  });

  it('says when each code happens', () => {
    expect(documented.filter((entry) => entry.when.length < 10).map((entry) => `line ${entry.line}: ${entry.code}`)).toEqual([]);
  });
});
