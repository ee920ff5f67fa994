/**
 * Checks of the usage charts in a real Chromium: whether Chart.js really drew on a chart's canvas,
 * and what its table alternative says. A chart is found by its region, named by its heading.
 */
import type { Locator, Page } from 'playwright-core';

/** Just what the pixel count reads of a canvas, so the test project needs no DOM typings. */
interface PaintedCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, width: number, height: number): { data: ArrayLike<number> } } | null;
}

interface TableRow {
  cells: ArrayLike<{ textContent: string | null }>;
}

/** How many pixels of the chart's canvas are not transparent: zero means Chart.js drew nothing. */
export async function paintedPixels(chart: Locator): Promise<number> {
  return chart.locator('canvas').evaluate((canvas: PaintedCanvas) => {
    const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
    let painted = 0;
    for (let index = 3; index < pixels.length; index += 4) if ((pixels[index] ?? 0) > 0) painted += 1;
    return painted;
  });
}

/** The rows of a chart's table alternative, opened as a person opens it, cell by cell. */
export async function tableOf(chart: Locator): Promise<string[][]> {
  if ((await chart.locator('details[open]').count()) === 0) await chart.getByText('Show as a table', { exact: true }).click();
  return chart
    .getByRole('table')
    .locator('tbody tr')
    .evaluateAll((rows: TableRow[]) => rows.map((row) => Array.from(row.cells, (cell) => (cell.textContent ?? '').trim())));
}

/** The chart (or other region) under this heading. */
export function chartNamed(page: Page, heading: string): Locator {
  return page.getByRole('region', { name: heading, exact: true });
}
