// English strings of answer versions, edited questions, ratings and Try again on the chat page.
export const chatVersions = {
  previousVersion: 'Previous version',
  nextVersion: 'Next version',
  versionOf: 'Version {{index}} of {{count}}',
  edit: 'Edit',
  editQuestion: 'Edit your question',
  editLabel: 'Your question',
  saveEdit: 'Save and send',
  cancelEdit: 'Cancel',
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  commentLabel: 'What could be better? (optional)',
  sendComment: 'Send feedback',
  thanks: 'Thank you for your feedback.',
  ratingFailed: 'Your feedback could not be saved: {{message}}',
  versionFailed: 'That version could not be shown: {{message}}',
  tryAgain: 'Try again',
} as const;
