// English strings of exporting and importing assistants.
export const importExport = {
  title: 'Import',
} as const;
