// English strings of the multi-tool form.
export const toolsManager = {
  title: '',
} as const;
