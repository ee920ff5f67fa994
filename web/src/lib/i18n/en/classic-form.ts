// English strings of the classic assistant form and the conversion to multi-tool.
export const classicForm = {
  title: 'Classic',
} as const;
