/** An answer's sources as a reader sees them: one entry per document, its passages keeping their citation numbers. */
import { describe, expect, it } from 'vitest';
import type { Source } from '$lib/api/chat-types';
import { groupSources, passageElementId } from './source-groups';

const ORIGIN = 'https://merino.example';

describe('grouping sources by document', () => {
  it('names a document once, with each passage under the number the answer cites it by', () => {
    const sources: Source[] = [
      { title: 'photosynthesis.md', document_id: '4', knowledge_base_id: '1', text: 'Light', section: 'Light reactions' },
      { title: 'cells.md', document_id: '5', knowledge_base_id: '1', text: 'Walls' },
      { title: 'photosynthesis.md', document_id: '4', knowledge_base_id: '1', text: 'Sugar', page: 3 },
    ];
    const groups = groupSources(sources, ORIGIN);
    expect(groups.map((group) => [group.name, group.passages.map((passage) => passage.number)])).toEqual([
      ['photosynthesis.md', [1, 3]],
      ['cells.md', [2]],
    ]);
    expect(groups[0]?.passages[1]?.source.page).toBe(3);
  });

  it('keeps same-named documents of two knowledge bases apart', () => {
    const groups = groupSources(
      [
        { title: 'notes.md', document_id: '4', knowledge_base_id: '1' },
        { title: 'notes.md', document_id: '4', knowledge_base_id: '2' },
      ],
      ORIGIN,
    );
    expect(groups).toHaveLength(2);
  });

  it('groups sources without a document by their address, ignoring the fragment, and then by name', () => {
    const groups = groupSources(
      [
        { title: 'Guide', url: 'https://example.org/guide#part-1' },
        { title: 'Guide, part 2', url: 'https://example.org/guide#part-2' },
        { title: 'Handout' },
        { title: 'Handout' },
      ],
      ORIGIN,
    );
    expect(groups.map((group) => group.passages.length)).toEqual([2, 2]);
    expect(groups[0]?.link).toBe('https://example.org/guide#part-1');
  });

  it('never links a document through an unsafe address, and keeps passage text as it came', () => {
    const text = '<img src=x onerror="window.hacked=1"> [1]';
    const [group] = groupSources([{ title: '<b>x</b>', url: 'javascript:alert(1)', text }], ORIGIN);
    expect(group?.link).toBeUndefined();
    expect(group?.name).toBe('<b>x</b>');
    expect(group?.passages[0]?.source.text).toBe(text);
  });

  it('gives nothing for no sources, and passage ids an answer can link to', () => {
    expect(groupSources([], ORIGIN)).toEqual([]);
    expect(passageElementId('answer-7', 2)).toBe('answer-7-source-2');
  });
});
