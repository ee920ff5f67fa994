// English strings of the signed source-link page (/sources/{token}), where a "Sources" block's link (Open WebUI) opens.
export const sourceLinks = {
  pageTitle: 'Cited passage',
  loading: 'Opening the passage…',
  fromKnowledgeBase: 'From the knowledge base {{name}}',
  citedPassage: 'The cited passage',
  passageOf: 'Passage {{number}} of {{count}}',
  section: 'Section: {{section}}',
  page: 'Page {{page}}',
  linkNote: 'This link opens only this passage, for the person the answer was for and for those who may read the knowledge base.',
  expiredTitle: 'This link has ended',
  expired: 'Source links last a limited time. Ask the question again to get a fresh link.',
  invalidTitle: 'This is not a source link',
  invalid: 'The address is incomplete or was changed. Open the link again from the answer it came with.',
  refusedTitle: 'This link does not open',
  refused: 'It was altered, or the person it was made for may no longer read this passage.',
  refusedSignedIn:
    'It does not open for {{name}}: you may not read this knowledge base, or the link was altered. A source link opens for the person the answer was for, and for those who may read the knowledge base.',
  failed: 'The passage could not be opened: {{message}}',
};
