// English words for the server's stable error codes (docs/errors.md), shown instead of its English message.
export const serverErrors = {
  upstream_error: 'The model did not answer. Please try again in a moment.',
  upstream_timeout: 'The model took too long to answer.',
  upstream_rate_limited: 'The model is busy right now. Please try again in a moment.',
  upstream_rejected: 'The model could not take this request.',
  upstream_refused: 'The model could not be reached.',
  rate_limited: 'You have sent many messages in a short time. Please wait a little.',
  chat_full: 'This chat is full. Start a new chat to go on.',
  nothing_to_regenerate: 'There is no question to answer again.',
  not_found: 'This was not found, or you may not see it.',
  server_shutting_down: 'The server is restarting. Please try again in a moment.',
  internal_error: 'Something went wrong on the server.',
  stream_ended: 'The answer ended early.',
  network: 'The server could not be reached. Check your connection.',
} as const;
