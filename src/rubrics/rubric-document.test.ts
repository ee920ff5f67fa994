// Proves the pure rubric module: LAMB's rubric JSON is read by LAMB's rules with every problem named by its path, missing ids are generated without colliding with chosen ones, the markdown export is a readable table, and the evaluation document (markdown and JSON) carries the scoring instructions, the weighted formula, the criteria overview, the levels and the expected output format.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { completeRubric, readRubricDraft, type RubricDocument } from './rubric-document.js';
import { criterionWeightings, evaluationJson, evaluationMarkdown, rubricToMarkdown } from './rubric-rendering.js';

const TIMESTAMPS = { createdAt: '2025-03-01T10:00:00.000Z', modifiedAt: '2025-03-02T11:00:00.000Z' };

function levels(prefix: string) {
  return [
    { score: 1, label: 'Beginning', description: `${prefix} is missing or unclear` },
    { score: 4, label: 'Exemplary', description: `${prefix} is clear and compelling` },
    { score: 2, label: 'Developing', description: `${prefix} is partly clear` },
    { score: 3, label: 'Proficient', description: `${prefix} is clear` },
  ];
}

/** A rubric as a LAMB client sends it to create: no ids, no timestamps. */
function essayRubric(): Record<string, unknown> {
  return {
    title: 'Essay writing',
    description: 'Argumentative essays, grade 10',
    metadata: { subject: 'English', gradeLevel: '10', tags: ['essay'] },
    criteria: [
      { name: 'Thesis', description: 'Quality of the main argument', weight: 60, levels: levels('The thesis') },
      { name: 'Evidence', description: 'Support for the argument', weight: 40, levels: levels('The evidence') },
    ],
    scoringType: 'points',
    maxScore: 10,
  };
}

function complete(input: unknown, strict = true): RubricDocument {
  return completeRubric(readRubricDraft(input, { strict }), { rubricId: 'essay-rubric-0001', ...TIMESTAMPS });
}

function refusal(input: unknown, strict = true): AppError {
  try {
    readRubricDraft(input, { strict });
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the rubric to be refused');
}

function problemPaths(error: AppError): string[] {
  return (error.details?.errors as Array<{ path: string }>).map((problem) => problem.path);
}

describe('reading LAMB rubric JSON', () => {
  it("accepts LAMB's own default rubric, keeping its ids and setting the timestamps", () => {
    const lambDefault = {
      rubricId: '6f1c2d3e-aaaa-bbbb-cccc-1234567890ab',
      title: 'New Rubric',
      description: 'A new rubric for assessing student work',
      metadata: { subject: 'General', gradeLevel: 'General', createdAt: '2020-01-01T00:00:00', modifiedAt: '2020-01-01T00:00:00' },
      criteria: [
        {
          id: 'criterion-1',
          name: 'Content Quality',
          description: 'Quality and accuracy of content',
          weight: 50,
          order: 0,
          levels: [
            { id: 'level-exemplary', score: 4, label: 'Exemplary', description: 'Comprehensive', order: 0 },
            { id: 'level-beginning', score: 1, label: 'Beginning', description: 'Inaccurate', order: 1 },
          ],
        },
      ],
      scoringType: 'points',
      maxScore: 10,
    };
    const document = completeRubric(readRubricDraft(lambDefault, { strict: true }), TIMESTAMPS);
    expect(document).toEqual({ ...lambDefault, metadata: { subject: 'General', gradeLevel: 'General', ...TIMESTAMPS } });
  });

  it('generates the rubricId, criterion ids and level ids a client left out', () => {
    const document = completeRubric(readRubricDraft(essayRubric(), { strict: true }), TIMESTAMPS);
    expect(document.rubricId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(document.criteria.map((criterion) => criterion.id)).toEqual(['criterion-1', 'criterion-2']);
    expect(document.criteria[1]!.levels.map((level) => level.id)).toEqual([
      'criterion-2-level-1',
      'criterion-2-level-2',
      'criterion-2-level-3',
      'criterion-2-level-4',
    ]);
  });

  it('keeps the ids a client chose and never generates one that collides with them', () => {
    const input = essayRubric();
    const criteria = input.criteria as Array<Record<string, unknown>>;
    criteria[1]!.id = 'criterion-1';
    (criteria[0]!.levels as Array<Record<string, unknown>>)[1]!.id = 'criterion-1-2-level-1';
    const document = complete(input);
    expect(document.criteria.map((criterion) => criterion.id)).toEqual(['criterion-1-2', 'criterion-1']);
    expect(document.criteria[0]!.levels.map((level) => level.id)).toEqual([
      'criterion-1-2-level-1-2',
      'criterion-1-2-level-1',
      'criterion-1-2-level-3',
      'criterion-1-2-level-4',
    ]);
  });

  it('treats null and empty ids as missing, as LAMB does', () => {
    const input = essayRubric();
    (input.criteria as Array<Record<string, unknown>>)[0]!.id = '';
    input.rubricId = null;
    const document = completeRubric(readRubricDraft(input, { strict: true }), TIMESTAMPS);
    expect(document.criteria[0]!.id).toBe('criterion-1');
    expect(document.rubricId).toHaveLength(36);
  });

  it('keeps open metadata keys and replaces client timestamps with the server ones', () => {
    const input = { ...essayRubric(), metadata: { subject: null, course: 'ENG-10', createdAt: 'yesterday', modifiedAt: 5 } };
    expect(complete(input).metadata).toEqual({ subject: null, course: 'ENG-10', ...TIMESTAMPS });
  });

  it('trims the title and defaults the description and metadata', () => {
    const { description: _description, metadata: _metadata, ...rest } = essayRubric();
    const document = complete({ ...rest, title: '  Essay writing  ' });
    expect(document.title).toBe('Essay writing');
    expect(document.description).toBe('');
    expect(document.metadata).toEqual(TIMESTAMPS);
  });
});

describe("refusing what breaks LAMB's rules", () => {
  it('names the path of a single problem in param, message and details', () => {
    const input = essayRubric();
    ((input.criteria as Array<Record<string, unknown>>)[1]!.levels as Array<Record<string, unknown>>)[0]!.label = '  ';
    const error = refusal(input);
    expect(error.code).toBe('invalid_body');
    expect(error.status).toBe(400);
    expect(error.param).toBe('criteria[1].levels[0].label');
    expect(error.message).toBe('"criteria[1].levels[0].label" must not be empty.');
    expect(error.details).toEqual({ errors: [{ path: 'criteria[1].levels[0].label', message: error.message }] });
  });

  it('lists every problem at once, in document order', () => {
    const error = refusal({
      title: '',
      criteria: [
        { name: 'Only level', description: 'x', weight: -1, order: 1.5, levels: [{ score: 'high', label: 'A', description: 'a' }] },
        {
          id: 'c',
          name: 'B',
          description: 'b',
          weight: 1,
          levels: [
            { id: 'l', score: 1, label: 'A', description: 'a' },
            { id: 'l', score: 2, label: 'B', description: 'b' },
          ],
        },
        {
          id: 'c',
          name: 'C',
          description: 'c',
          weight: 1,
          levels: [
            { score: 1, label: 'A', description: 'a' },
            { score: 2, label: 'B', description: 'b' },
          ],
        },
      ],
      scoringType: 'letter-grades',
      maxScore: 0,
      metadata: { tags: ['ok', 7], author: 3 },
    });
    expect(problemPaths(error)).toEqual([
      'title',
      'metadata.author',
      'metadata.tags[1]',
      'criteria[0].weight',
      'criteria[0].order',
      'criteria[0].levels',
      'criteria[1].levels[1].id',
      'criteria[2].id',
      'scoringType',
      'maxScore',
    ]);
    const messages = (error.details!.errors as Array<{ message: string }>).map((problem) => problem.message);
    expect(messages).toContain('"criteria[0].levels" must hold at least 2 performance levels (it holds 1).');
    expect(messages).toContain('"criteria[0].weight" must be 0 or more.');
    expect(messages).toContain('"scoringType" must be one of points, percentage, holistic, single-point, checklist.');
    expect(messages).toContain('"maxScore" must be a positive number.');
    expect(messages).toContain('"criteria[1].levels[1].id" repeats the level id "l"; level ids must be unique within their criterion.');
    expect(messages).toContain('"criteria[2].id" repeats the criterion id "c"; criterion ids must be unique within the rubric.');
  });

  it.each([
    ['a missing title', { title: undefined }, 'title', '"title" is required.'],
    ['no criteria', { criteria: [] }, 'criteria', '"criteria" must hold at least one criterion.'],
    ['criteria that are not an array', { criteria: { name: 'x' } }, 'criteria', '"criteria" must be an array of criteria, not an object.'],
    [
      'a criterion that is not an object',
      { criteria: ['Thesis'] },
      'criteria[0]',
      '"criteria[0]" must be an object (a criterion), not a string.',
    ],
    [
      'a missing scoringType',
      { scoringType: undefined },
      'scoringType',
      '"scoringType" is required: one of points, percentage, holistic, single-point, checklist.',
    ],
    ['a maxScore given as text', { maxScore: '10' }, 'maxScore', '"maxScore" must be a number, not a string.'],
    [
      'a rubricId shorter than 10 characters',
      { rubricId: 'short' },
      'rubricId',
      '"rubricId" must be 10 to 200 letters, digits or the characters . _ : ~ - (leave it out and the server generates one).',
    ],
    ['a rubricId with a slash', { rubricId: 'essay/rubric/2025' }, 'rubricId', undefined],
    ['metadata that is not an object', { metadata: 'English' }, 'metadata', '"metadata" must be an object, not a string.'],
    [
      'a description over 2,000 characters',
      { description: 'x'.repeat(2_001) },
      'description',
      '"description" must be at most 2000 characters long.',
    ],
  ])('refuses %s', (_name, change, path, message) => {
    // A change to undefined leaves the field out.
    const input = Object.fromEntries(Object.entries({ ...essayRubric(), ...change }).filter(([, value]) => value !== undefined));
    const error = refusal(input);
    expect(error.param).toBe(path);
    if (message !== undefined) expect(error.message).toBe(message);
  });

  it('refuses a body that is not an object, without a param', () => {
    for (const value of [null, [], 'rubric', 3]) {
      const error = refusal(value);
      expect(error.param).toBeNull();
      expect(problemPaths(error)).toEqual(['(body)']);
    }
  });

  it('refuses unknown fields when strict, at any depth, and drops them (and the rubricId) when lenient', () => {
    const input = essayRubric();
    input.colour = 'blue';
    (input.criteria as Array<Record<string, unknown>>)[0]!.hint = 'x';
    input.rubricId = 'x';
    expect(problemPaths(refusal(input))).toEqual(['colour', 'rubricId', 'criteria[0].hint']);
    const lenient = completeRubric(readRubricDraft(input, { strict: false }), TIMESTAMPS);
    expect(Object.keys(lenient).sort()).toEqual(['criteria', 'description', 'maxScore', 'metadata', 'rubricId', 'scoringType', 'title']);
    expect(Object.keys(lenient.criteria[0]!).sort()).toEqual(['description', 'id', 'levels', 'name', 'weight']);
    expect(lenient.rubricId).not.toBe('x');
  });

  it('prefixes every path with the root it was given', () => {
    const error = (() => {
      try {
        readRubricDraft({ ...essayRubric(), maxScore: -2 }, { strict: false, root: 'rubric_data' });
      } catch (caught) {
        return caught as AppError;
      }
      throw new Error('expected a refusal');
    })();
    expect(error.param).toBe('rubric_data.maxScore');
  });
});

describe('the markdown export', () => {
  it('shows the header facts and one table with a column per shared level, highest score first', () => {
    const markdown = rubricToMarkdown(complete(essayRubric()));
    expect(
      markdown.startsWith(
        '# Essay writing\n\nArgumentative essays, grade 10\n\n**Subject:** English  \n**Grade level:** 10  \n**Scoring type:** points  \n**Maximum score:** 10\n',
      ),
    ).toBe(true);
    expect(markdown).toContain('| Criterion | Exemplary (4) | Proficient (3) | Developing (2) | Beginning (1) |');
    expect(markdown).toContain(
      '| **Thesis** (weight 60) | The thesis is clear and compelling | The thesis is clear | The thesis is partly clear | The thesis is missing or unclear |',
    );
    expect(markdown).toContain('**Evidence**: Support for the argument');
    expect(markdown).toContain('*Created: 2025-03-01*');
    expect(markdown).toContain('*Last modified: 2025-03-02*');
  });

  it('gives each criterion its own table when their levels differ, and keeps cell text from breaking the table', () => {
    const input = essayRubric();
    const criteria = input.criteria as Array<Record<string, unknown>>;
    criteria[1]!.levels = [
      { score: 0, label: 'Absent', description: 'No sources | none\ncited' },
      { score: 2, label: 'Present', description: 'Sources cited' },
    ];
    const markdown = rubricToMarkdown(complete(input));
    expect(markdown).toContain(
      '### Evidence (weight 40)\n\nSupport for the argument\n\n| Level | Score | Description |\n| --- | --- | --- |\n| Present | 2 | Sources cited |\n| Absent | 0 | No sources \\| none<br>cited |',
    );
    expect(markdown).not.toContain('| Criterion |');
  });

  it('orders criteria by their order field, then as listed', () => {
    const input = essayRubric();
    const criteria = input.criteria as Array<Record<string, unknown>>;
    criteria[0]!.order = 2;
    criteria[1]!.order = 1;
    const markdown = rubricToMarkdown(complete(input));
    expect(markdown.indexOf('**Evidence**')).toBeLessThan(markdown.indexOf('**Thesis**'));
  });
});

describe('the evaluation document for the model', () => {
  it('in markdown: title, scoring instructions with the weighted formula, criteria overview, levels per criterion, expected output', () => {
    const markdown = evaluationMarkdown(complete(essayRubric()));
    const headings = markdown.split('\n').filter((text) => text.startsWith('#'));
    expect(headings).toEqual([
      '# Essay writing',
      '## Scoring instructions',
      '## Criteria overview',
      '## Performance levels',
      '### 1. Thesis (weight 60, 60% of the final score)',
      '### 2. Evidence (weight 40, 40% of the final score)',
      '## Expected output format',
    ]);
    expect(markdown).toContain('Scoring type: points. Maximum score: 10.');
    expect(markdown).toContain(
      'final score = (sum over all criteria of weight × (chosen level score ÷ highest level score of the criterion)) ÷ 100 × 10',
    );
    expect(markdown).toContain('| 1 | Thesis | 60 | 60% | 1–4 |');
    expect(markdown).toContain(
      '| Exemplary | 4 | The evidence is clear and compelling |\n| Proficient | 3 | The evidence is clear |\n| Developing | 2 | The evidence is partly clear |\n| Beginning | 1 | The evidence is missing or unclear |',
    );
    expect(markdown).toContain('Then the final score out of 10, with the calculation shown.');
  });

  it('counts every criterion the same when no criterion has a weight', () => {
    const input = essayRubric();
    for (const criterion of input.criteria as Array<Record<string, unknown>>) criterion.weight = 0;
    const rubric = complete(input);
    expect(criterionWeightings(rubric).map((weighting) => weighting.sharePercent)).toEqual([50, 50]);
    expect(evaluationMarkdown(rubric)).toContain('÷ 2 × 10');
  });

  it('in JSON: the same instructions and weights, then the rubric itself', () => {
    const rubric = complete({ ...essayRubric(), scoringType: 'percentage', maxScore: 100 });
    const parsed = JSON.parse(evaluationJson(rubric));
    expect(Object.keys(parsed)).toEqual(['evaluation_instructions', 'rubric']);
    expect(parsed.rubric).toEqual(rubric);
    expect(parsed.evaluation_instructions.weighted_formula).toContain('÷ 100 × 100');
    expect(parsed.evaluation_instructions.scoring).toContain(
      'Report the final score as a percentage of the maximum score as well as in points.',
    );
    expect(parsed.evaluation_instructions.criteria_overview).toEqual([
      { criterion_id: 'criterion-1', name: 'Thesis', weight: 60, share_percent: 60, score_range: [1, 4] },
      { criterion_id: 'criterion-2', name: 'Evidence', weight: 40, share_percent: 40, score_range: [1, 4] },
    ]);
    expect(parsed.evaluation_instructions.expected_output_format).toHaveLength(3);
  });
});

describe('the finer points of reading, kept from the hand-written reader', () => {
  it('counts lengths in UTF-16 code units, so 101 emoji are too long for a 200-character title', () => {
    expect(refusal({ ...essayRubric(), title: '😀'.repeat(101) }).message).toBe('"title" must be at most 200 characters long.');
    expect(complete({ ...essayRubric(), title: '😀'.repeat(100) }).title).toHaveLength(200);
  });

  it('refuses a blank id as not a non-empty string, and drops null orders', () => {
    const input = essayRubric();
    const criteria = input.criteria as Array<Record<string, unknown>>;
    criteria[0]!.id = '   ';
    expect(refusal(input).message).toBe('"criteria[0].id" must be a non-empty string, not a string.');
    criteria[0]!.id = null;
    criteria[0]!.order = null;
    expect(complete(input).criteria[0]).not.toHaveProperty('order');
  });

  it('still compares the id of a criterion refused only for its order, and lets extra fields through only at the top', () => {
    const input = essayRubric();
    const criteria = input.criteria as Array<Record<string, unknown>>;
    criteria[0]!.id = 'same-id';
    criteria[1]!.id = 'same-id';
    criteria[1]!.order = -1;
    expect(problemPaths(refusal(input))).toEqual(['criteria[1].order', 'criteria[1].id']);
    criteria[0]!.visibility = 'organization';
    const error = (() => {
      try {
        readRubricDraft({ ...essayRubric(), visibility: 'organization', criteria }, { strict: true, extraFields: ['visibility'] });
      } catch (caught) {
        return caught as AppError;
      }
      throw new Error('expected a refusal');
    })();
    expect(problemPaths(error)).toEqual(['criteria[0].visibility', 'criteria[1].order', 'criteria[1].id']);
  });
});
