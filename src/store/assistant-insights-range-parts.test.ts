/**
 * A range of days is read as its whole calendar months (from the monthly roll-up) and the days
 * around them (from the daily one), each day in exactly one part.
 */
import { describe, expect, it } from 'vitest';
import { rangeParts } from './assistant-insights-repository.js';

function daysCovered(parts: ReturnType<typeof rangeParts>): string[] {
  const days: string[] = [];
  const add = (from: string, to: string) => {
    for (let time = Date.parse(`${from}T00:00:00Z`); time <= Date.parse(`${to}T00:00:00Z`); time += 86_400_000)
      days.push(new Date(time).toISOString().slice(0, 10));
  };
  for (const span of parts.days) add(span.from, span.to);
  if (parts.months !== undefined) {
    const end = new Date(`${parts.months.to}-01T00:00:00Z`);
    end.setUTCMonth(end.getUTCMonth() + 1);
    add(`${parts.months.from}-01`, new Date(end.getTime() - 86_400_000).toISOString().slice(0, 10));
  }
  return days.sort();
}

describe('insights range parts', () => {
  it('reads whole months from the monthly tier and the edges from the daily one', () => {
    expect(rangeParts({ from: '2025-06-30', to: '2026-06-30' })).toEqual({
      days: [{ from: '2025-06-30', to: '2025-06-30' }],
      months: { from: '2025-07', to: '2026-06' },
    });
    expect(rangeParts({ from: '2026-05-15', to: '2026-06-13' })).toEqual({
      days: [{ from: '2026-05-15', to: '2026-06-13' }],
      months: undefined,
    });
    expect(rangeParts({ from: '2026-02-01', to: '2026-02-28' })).toEqual({ days: [], months: { from: '2026-02', to: '2026-02' } });
    expect(rangeParts({ from: '2026-01-20', to: '2026-03-05' })).toEqual({
      days: [
        { from: '2026-01-20', to: '2026-01-31' },
        { from: '2026-03-01', to: '2026-03-05' },
      ],
      months: { from: '2026-02', to: '2026-02' },
    });
  });

  it('covers each day of any range exactly once', () => {
    for (const [from, to] of [
      ['2024-02-29', '2025-03-01'],
      ['2026-12-31', '2027-01-01'],
      ['2026-03-01', '2026-03-01'],
      ['2025-11-30', '2026-01-31'],
    ] as const) {
      const expected: string[] = [];
      for (let time = Date.parse(`${from}T00:00:00Z`); time <= Date.parse(`${to}T00:00:00Z`); time += 86_400_000)
        expected.push(new Date(time).toISOString().slice(0, 10));
      expect(daysCovered(rangeParts({ from, to }))).toEqual(expected);
    }
  });
});
