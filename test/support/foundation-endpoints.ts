/** Every endpoint the foundation serves, as `METHOD /path` with OpenAPI-style `{id}` parameters. */
export const FOUNDATION_ENDPOINTS = [
  'POST /api/auth/login',
  'POST /api/auth/logout',
  'GET /api/me',
  'POST /api/users',
  'GET /api/users',
  'GET /api/users/{id}',
  'PATCH /api/users/{id}',
  'POST /api/api-keys',
  'GET /api/api-keys',
  'DELETE /api/api-keys/{id}',
  'POST /api/assistants',
  'GET /api/assistants',
  'POST /api/assistants/import',
  'GET /api/assistants/{id}',
  'PATCH /api/assistants/{id}',
  'DELETE /api/assistants/{id}',
  'PUT /api/assistants/{id}/publish',
  'GET /api/assistants/{id}/shares',
  'PUT /api/assistants/{id}/shares',
  'GET /api/assistants/{id}/export',
  'GET /healthz',
  'GET /status',
] as const;

/** The endpoints among them that read a JSON request body. */
export const FOUNDATION_BODY_ENDPOINTS = [
  'POST /api/auth/login',
  'POST /api/users',
  'PATCH /api/users/{id}',
  'POST /api/api-keys',
  'POST /api/assistants',
  'POST /api/assistants/import',
  'PATCH /api/assistants/{id}',
  'PUT /api/assistants/{id}/publish',
  'PUT /api/assistants/{id}/shares',
] as const;
