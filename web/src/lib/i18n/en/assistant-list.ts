// English strings of the assistant list page (/assistants).
export const assistantList = {
  title: 'Assistants',
} as const;
