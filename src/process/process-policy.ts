/**
 * What the process does with an error nobody handled: it logs it and keeps serving. A promise
 * rejected without a handler (Node's default ends the process) or an exception thrown outside any
 * request must not let one request take every other learner's session down with it.
 *
 * The log entry names the error's kind, code and call frames only. Its message is left out on
 * purpose: an error can quote what it was working on, and that may be a learner's text or a secret.
 */
export interface ProcessPolicyLogger {
  error(details: object, message: string): void;
}

export interface SafeErrorDescription {
  kind: string;
  code?: string;
  frames: string[];
}

/** How many call frames an entry keeps: enough to find the place, not a wall of text. */
const LOGGED_FRAMES_MAXIMUM = 12;

/** The kind, code and frames of an error, never its message. */
export function describeErrorSafely(error: unknown): SafeErrorDescription {
  if (!(error instanceof Error)) return { kind: typeof error, frames: [] };
  const code = (error as { code?: unknown }).code;
  // The stack opens with "<name>: <message>", and a message may hold lines that look like frames.
  const stack = error.stack ?? '';
  const header = String(error);
  const frames = (stack.startsWith(header) ? stack.slice(header.length) : '')
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .slice(0, LOGGED_FRAMES_MAXIMUM)
    .map((line) => line.trim());
  return { kind: error.name, ...(typeof code === 'string' && { code }), frames };
}

/** Installs the policy once for the process; returns a function that removes it again. */
export function installProcessPolicy(logger: ProcessPolicyLogger): () => void {
  const onRejection = (reason: unknown): void =>
    logger.error({ error: describeErrorSafely(reason) }, 'unhandled promise rejection; the process keeps running');
  const onException = (error: Error): void =>
    logger.error({ error: describeErrorSafely(error) }, 'uncaught exception; the process keeps running');
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
