/**
 * Proves the placeholder analysis: the template's placeholders in order, who fills each, a warning
 * for a placeholder nothing fills and for an enabled context tool the template lacks, built-ins
 * that need no tool, disabled tools that fill nothing, custom placeholders, and a blank template.
 */
import { describe, expect, it } from 'vitest';
import {
  analysePlaceholders,
  builtInPlaceholders,
  effectivePlaceholder,
  templatePlaceholders,
  type PlaceholderTool,
} from './placeholder-analysis';

const knowledge: PlaceholderTool = { label: 'Knowledge Base RAG', enabled: true, placeholder: 'context' };
const rubric: PlaceholderTool = { label: 'Assessment rubric', enabled: true, placeholder: 'rubric' };
const weather: PlaceholderTool = { label: 'Weather', enabled: true, placeholder: undefined };
const BUILT_INS = builtInPlaceholders('multi_augment');

describe('templatePlaceholders', () => {
  it('finds each lower-case {name} once, in order, and ignores what the server would not fill', () => {
    expect(templatePlaceholders('{context} then {user_input}, {context} again, {Upper} {2x} {{double}} { spaced }')).toEqual([
      'context',
      'user_input',
      'double',
    ]);
  });
});

describe('effectivePlaceholder', () => {
  it('uses config.placeholder when it names one, else the tool default, and none for a function tool', () => {
    expect(effectivePlaceholder({ placeholder: ' notes ' }, 'file')).toBe('notes');
    expect(effectivePlaceholder({ placeholder: '' }, 'file')).toBe('file');
    expect(effectivePlaceholder({}, null)).toBeUndefined();
  });
});

describe('analysePlaceholders', () => {
  it('warns of nothing when every placeholder is filled and every context tool used', () => {
    const result = analysePlaceholders('{context}\n{rubric}\nQ: {user_input}', [knowledge, rubric, weather], BUILT_INS);
    expect(result.warnings).toEqual([]);
    expect(result.placeholders).toEqual([
      { name: 'user_input', inTemplate: true, builtIn: true, filledBy: [] },
      { name: 'context', inTemplate: true, builtIn: false, filledBy: ['Knowledge Base RAG'] },
      { name: 'rubric', inTemplate: true, builtIn: false, filledBy: ['Assessment rubric'] },
    ]);
  });

  it('warns of a template placeholder no tool fills, and of a context tool whose placeholder is missing', () => {
    const result = analysePlaceholders('{context} {notes} {user_input}', [knowledge, rubric], BUILT_INS);
    expect(result.warnings).toEqual([
      { kind: 'unfilled', placeholder: 'notes' },
      { kind: 'missing_from_template', placeholder: 'rubric', tool: 'Assessment rubric' },
    ]);
  });

  it('lets a disabled tool fill nothing and need no place in the template', () => {
    const result = analysePlaceholders(
      '{context} {user_input}',
      [
        { ...knowledge, enabled: false },
        { ...rubric, enabled: false },
      ],
      BUILT_INS,
    );
    expect(result.warnings).toEqual([{ kind: 'unfilled', placeholder: 'context' }]);
  });

  it('follows a custom placeholder, and lists the same placeholder filled by two tools', () => {
    const custom = { ...rubric, placeholder: 'context' };
    const result = analysePlaceholders('{context} {user_input}', [knowledge, custom], BUILT_INS);
    expect(result.warnings).toEqual([]);
    expect(result.placeholders.find((use) => use.name === 'context')?.filledBy).toEqual(['Knowledge Base RAG', 'Assessment rubric']);
  });

  it('treats {moodle_user} as filled only under moodle_augment', () => {
    expect(analysePlaceholders('{moodle_user}', [], builtInPlaceholders('moodle_augment')).warnings).toEqual([]);
    expect(analysePlaceholders('{moodle_user}', [], BUILT_INS).warnings).toEqual([{ kind: 'unfilled', placeholder: 'moodle_user' }]);
  });

  it('warns of nothing for a blank template, which the server fills with a section per tool', () => {
    expect(analysePlaceholders('  ', [knowledge, rubric], BUILT_INS).warnings).toEqual([]);
  });
});
