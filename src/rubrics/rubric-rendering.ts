/**
 * Renders a rubric: the markdown export people read, and the evaluation document the rubric_rag
 * tool gives the model (scoring instructions with the weighted formula, criteria overview, levels
 * per criterion, expected output), in markdown or JSON. Pure, like rubric-document.ts.
 */
import type { RubricCriterion, RubricDocument, RubricLevel, ScoringType } from './rubric-document.js';

/** Criteria in `order` (then as listed), as LAMB's markdown orders them. */
export function orderedCriteria(rubric: RubricDocument): RubricCriterion[] {
  return rubric.criteria
    .map((criterion, index) => ({ criterion, index }))
    .sort((a, b) => (a.criterion.order ?? 0) - (b.criterion.order ?? 0) || a.index - b.index)
    .map((entry) => entry.criterion);
}

/** Levels from the highest score down (then by `order`, then as listed): the order a reader scans them in. */
export function orderedLevels(criterion: RubricCriterion): RubricLevel[] {
  return criterion.levels
    .map((level, index) => ({ level, index }))
    .sort((a, b) => b.level.score - a.level.score || (a.level.order ?? 0) - (b.level.order ?? 0) || a.index - b.index)
    .map((entry) => entry.level);
}

function formatNumber(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** Text made safe for one markdown table cell: no pipe ends the cell, no newline ends the row. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** Text made safe for one line: newlines become spaces. */
function line(text: string): string {
  // Each run of white space holding a line break becomes one space; /\s*\r?\n\s*/g did the
  // same but rescanned long runs of spaces from each of their characters.
  return text.replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run)).trim();
}

/** The level columns every criterion shares (same labels and scores, in the same order), if they do. */
function sharedLevelColumns(criteria: readonly RubricCriterion[]): Array<{ label: string; score: number }> | undefined {
  const columns = orderedLevels(criteria[0]!).map((level) => ({ label: level.label, score: level.score }));
  const same = criteria.every((criterion) => {
    const levels = orderedLevels(criterion);
    return (
      levels.length === columns.length &&
      levels.every((level, index) => level.label === columns[index]!.label && level.score === columns[index]!.score)
    );
  });
  return same ? columns : undefined;
}

function headerLines(rubric: RubricDocument): string[] {
  const lines = [`# ${line(rubric.title)}`, ''];
  if (rubric.description.trim() !== '') lines.push(rubric.description.trim(), '');
  const facts: string[] = [];
  if (typeof rubric.metadata.subject === 'string' && rubric.metadata.subject.trim() !== '')
    facts.push(`**Subject:** ${line(rubric.metadata.subject)}`);
  if (typeof rubric.metadata.gradeLevel === 'string' && rubric.metadata.gradeLevel.trim() !== '')
    facts.push(`**Grade level:** ${line(rubric.metadata.gradeLevel)}`);
  facts.push(`**Scoring type:** ${rubric.scoringType}`, `**Maximum score:** ${formatNumber(rubric.maxScore)}`);
  lines.push(facts.join('  \n'), '');
  return lines;
}

/**
 * The rubric as a markdown document for people (course pages, printing): title, description,
 * subject, grade level, scoring type and maximum score; then one table with a row per criterion
 * and a column per level when every criterion has the same levels (LAMB's layout), or a table per
 * criterion when they differ; then the criterion descriptions and the dates.
 */
export function rubricToMarkdown(rubric: RubricDocument): string {
  const lines = headerLines(rubric);
  const criteria = orderedCriteria(rubric);
  lines.push('## Criteria and performance levels', '');
  const columns = sharedLevelColumns(criteria);
  if (columns) {
    lines.push(`| Criterion | ${columns.map((column) => `${cell(column.label)} (${formatNumber(column.score)})`).join(' | ')} |`);
    lines.push(`| --- | ${columns.map(() => '---').join(' | ')} |`);
    for (const criterion of criteria) {
      const levels = orderedLevels(criterion);
      lines.push(
        `| **${cell(criterion.name)}** (weight ${formatNumber(criterion.weight)}) | ${levels.map((level) => cell(level.description)).join(' | ')} |`,
      );
    }
    lines.push('', '### Criterion descriptions', '');
    for (const criterion of criteria) lines.push(`**${line(criterion.name)}**: ${line(criterion.description)}`, '');
  } else {
    for (const criterion of criteria) {
      lines.push(`### ${line(criterion.name)} (weight ${formatNumber(criterion.weight)})`, '', line(criterion.description), '');
      lines.push('| Level | Score | Description |', '| --- | --- | --- |');
      for (const level of orderedLevels(criterion))
        lines.push(`| ${cell(level.label)} | ${formatNumber(level.score)} | ${cell(level.description)} |`);
      lines.push('');
    }
  }
  lines.push('---', '');
  if (rubric.metadata.createdAt) lines.push(`*Created: ${rubric.metadata.createdAt.slice(0, 10)}*  `);
  if (rubric.metadata.modifiedAt) lines.push(`*Last modified: ${rubric.metadata.modifiedAt.slice(0, 10)}*`);
  return `${lines.join('\n').trimEnd()}\n`;
}

/** What the weighted formula needs of each criterion. */
export interface CriterionWeighting {
  id: string;
  name: string;
  weight: number;
  /** The criterion's share of the final score, in percent (equal shares when every weight is 0). */
  sharePercent: number;
  highestScore: number;
  lowestScore: number;
}

export function criterionWeightings(rubric: RubricDocument): CriterionWeighting[] {
  const criteria = orderedCriteria(rubric);
  const totalWeight = criteria.reduce((sum, criterion) => sum + criterion.weight, 0);
  return criteria.map((criterion) => {
    const scores = criterion.levels.map((level) => level.score);
    return {
      id: criterion.id,
      name: criterion.name,
      weight: criterion.weight,
      sharePercent: totalWeight > 0 ? (criterion.weight / totalWeight) * 100 : 100 / criteria.length,
      highestScore: Math.max(...scores),
      lowestScore: Math.min(...scores),
    };
  });
}

const SCORING_TYPE_NOTES: Record<ScoringType, string> = {
  points: 'Report the final score in points.',
  percentage: 'Report the final score as a percentage of the maximum score as well as in points.',
  holistic:
    'This is a holistic rubric: the criteria inform one overall judgement. Use the formula as the anchor for that judgement and explain any difference from it.',
  'single-point':
    'This is a single-point rubric: say for each criterion whether the work falls short of, meets or goes beyond the expected level, and why.',
  checklist: 'This is a checklist: for each criterion, say whether the work meets it (the highest level) or not.',
};

/** The sentences of the evaluation instructions, shared by the markdown and JSON forms. */
export interface EvaluationInstructions {
  task: string;
  scoring: string[];
  formula: string;
  outputFormat: string[];
}

export function evaluationInstructions(rubric: RubricDocument): EvaluationInstructions {
  const weightings = criterionWeightings(rubric);
  const totalWeight = weightings.reduce((sum, weighting) => sum + weighting.weight, 0);
  const maxScore = formatNumber(rubric.maxScore);
  const weightsNote =
    totalWeight > 0
      ? `The weights add up to ${formatNumber(totalWeight)}; each criterion's share of the final score is its weight divided by that sum.`
      : 'No criterion has a weight, so every criterion counts the same.';
  return {
    task: `Evaluate the student's work against the rubric "${line(rubric.title)}". For each criterion, choose the one performance level whose description best matches the work, based only on evidence in the work.`,
    scoring: [
      `Scoring type: ${rubric.scoringType}. Maximum score: ${maxScore}.`,
      "A criterion earns its chosen level's score divided by the highest level score of that criterion.",
      weightsNote,
      SCORING_TYPE_NOTES[rubric.scoringType],
    ],
    formula:
      totalWeight > 0
        ? `final score = (sum over all criteria of weight × (chosen level score ÷ highest level score of the criterion)) ÷ ${formatNumber(totalWeight)} × ${maxScore}`
        : `final score = (sum over all criteria of (chosen level score ÷ highest level score of the criterion)) ÷ ${weightings.length} × ${maxScore}`,
    outputFormat: [
      'For each criterion, in the order listed: the criterion name, the chosen level label and its score out of the highest level score, and a short justification that cites the work.',
      `Then the final score out of ${maxScore}, with the calculation shown.`,
      'Then overall feedback: the main strengths and concrete next steps to improve.',
    ],
  };
}

/**
 * The evaluation document a model receives (rubric_rag, format markdown): the title and
 * description, the scoring instructions with the weighted formula, an overview of the criteria
 * with their weights and shares, the performance levels of each criterion from the highest score
 * down, and the expected output format.
 */
export function evaluationMarkdown(rubric: RubricDocument): string {
  const instructions = evaluationInstructions(rubric);
  const weightings = criterionWeightings(rubric);
  const lines = headerLines(rubric);
  lines.push('## Scoring instructions', '', instructions.task, '');
  for (const sentence of instructions.scoring) lines.push(`- ${sentence}`);
  lines.push('', 'Weighted formula:', '', '```', instructions.formula, '```', '');
  lines.push(
    '## Criteria overview',
    '',
    '| # | Criterion | Weight | Share of final score | Score range |',
    '| --- | --- | --- | --- | --- |',
  );
  weightings.forEach((weighting, index) => {
    lines.push(
      `| ${index + 1} | ${cell(weighting.name)} | ${formatNumber(weighting.weight)} | ${formatNumber(weighting.sharePercent)}% | ${formatNumber(weighting.lowestScore)}–${formatNumber(weighting.highestScore)} |`,
    );
  });
  lines.push('', '## Performance levels', '');
  orderedCriteria(rubric).forEach((criterion, index) => {
    const weighting = weightings[index]!;
    lines.push(
      `### ${index + 1}. ${line(criterion.name)} (weight ${formatNumber(criterion.weight)}, ${formatNumber(weighting.sharePercent)}% of the final score)`,
      '',
    );
    lines.push(line(criterion.description), '');
    lines.push('| Level | Score | Description |', '| --- | --- | --- |');
    for (const level of orderedLevels(criterion))
      lines.push(`| ${cell(level.label)} | ${formatNumber(level.score)} | ${cell(level.description)} |`);
    lines.push('');
  });
  lines.push('## Expected output format', '');
  instructions.outputFormat.forEach((sentence, index) => lines.push(`${index + 1}. ${sentence}`));
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * The evaluation document in JSON (rubric_rag, format json): the same instructions and weights
 * as the markdown form, then the rubric itself in LAMB's JSON.
 */
export function evaluationJson(rubric: RubricDocument): string {
  const instructions = evaluationInstructions(rubric);
  const document = {
    evaluation_instructions: {
      task: instructions.task,
      scoring: instructions.scoring,
      weighted_formula: instructions.formula,
      criteria_overview: criterionWeightings(rubric).map((weighting) => ({
        criterion_id: weighting.id,
        name: weighting.name,
        weight: weighting.weight,
        share_percent: Math.round(weighting.sharePercent * 100) / 100,
        score_range: [weighting.lowestScore, weighting.highestScore],
      })),
      expected_output_format: instructions.outputFormat,
    },
    rubric,
  };
  return JSON.stringify(document, null, 2);
}
