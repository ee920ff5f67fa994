// Proves the README's settings table says what the one settings declaration says: the same
// variables in the same order, none missing and none extra, each with the same default and meaning.
// The table is a copy of settingsDocumentation(); when this fails, the failure shows the row to write.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settingsDocumentation, type SettingDocumentation } from '../src/config/settings.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The rows of the first table after the `## Settings` heading, header and separator left out. */
function settingsTableRows(markdown: string): SettingDocumentation[] {
  const lines = markdown.split('\n');
  const heading = lines.indexOf('## Settings');
  expect(heading, 'README.md has a "## Settings" section').toBeGreaterThanOrEqual(0);
  const tableStart = lines.findIndex((line, index) => index > heading && line.startsWith('|'));
  const rows: SettingDocumentation[] = [];
  for (const line of lines.slice(tableStart + 2)) {
    if (!line.startsWith('|')) break;
    // Cells are split on pipes that are not escaped as \|.
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
    rows.push({ variable: cells[0] ?? '', defaultValue: cells[1] ?? '', meaning: cells[2] ?? '' });
  }
  return rows;
}

describe("the README's settings table", () => {
  it('lists every setting the server reads, in declaration order, with its default and meaning', () => {
    expect(settingsTableRows(README)).toEqual(settingsDocumentation());
  });

  it('would fail on a missing variable, an extra one, or a different default', () => {
    const documented = settingsDocumentation();
    const readmeRows = settingsTableRows(README);
    const port = documented.find((row) => row.variable === '`PORT`')!;
    expect(readmeRows.filter((row) => row !== readmeRows.find((candidate) => candidate.variable === '`PORT`'))).not.toEqual(documented);
    expect([...readmeRows, { variable: '`UNKNOWN_SETTING`', defaultValue: '—', meaning: 'x' }]).not.toEqual(documented);
    expect(readmeRows.map((row) => (row.variable === port.variable ? { ...row, defaultValue: '`9098`' } : row))).not.toEqual(documented);
    expect(port.defaultValue).toBe('`9099`');
  });
});
