// English strings of the sharing and publishing panel.
export const sharing = {
  title: 'Sharing',
} as const;
