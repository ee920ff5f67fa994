// English strings of the fields classic and multi-tool forms share, the type choice and the edit page.
export const assistantForm = {
  title: 'New assistant',
} as const;
