/**
 * A child process for the process-policy test: the real logger and policy, then a rejection
 * nobody handles and an exception thrown outside any request, both quoting a secret. The process
 * says it is still alive afterwards, which it could not under Node's default policy.
 */
import { createLogger } from '../../src/http/logger.js';
import { installProcessPolicy } from '../../src/process/process-policy.js';

const secret = process.argv[2] ?? 'missing secret';
installProcessPolicy(createLogger('info'));
void Promise.reject(new Error(`a learner wrote: ${secret}`));
setTimeout(() => {
  throw new TypeError(`tool output quoted: ${secret}`);
}, 10);
setTimeout(() => process.stdout.write('still alive\n'), 200);
