/** Bodies the template suites share: a rubric's content in LAMB's rubric JSON, as a rubric template or a rubric takes it. */
export const RUBRIC_CONTENT = {
  title: 'Essay',
  criteria: [
    {
      name: 'Thesis',
      description: 'The main argument',
      weight: 1,
      levels: [
        { score: 2, label: 'Clear', description: 'clear' },
        { score: 1, label: 'Unclear', description: 'unclear' },
      ],
    },
  ],
  scoringType: 'points',
  maxScore: 10,
};
