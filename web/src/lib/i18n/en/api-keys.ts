// English strings of the API keys page (/settings/api-keys).
export const apiKeys = {
  title: 'API keys',
} as const;
