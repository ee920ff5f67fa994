/**
 * Preloaded into a Merino server by bench/chat-request-phases.ts (`node --import`): records where
 * each chat completion request's time goes, from Node's own diagnostics channels, with no change to
 * the server. It is meant for requests one at a time: everything the process does while a request
 * is in flight is put down to that request.
 *
 * For each `/v1/chat/completions` request: when the server began it, when the request to the
 * provider was created (everything Merino does before the model: authentication, the rate limit,
 * the assistant, its tools, the prompt), when its body had been sent, when the provider's headers
 * and the end of its body arrived, and when the response was finished; the time spent in SQLite statements before the
 * provider's request and after its answer; and the garbage collector's pauses meanwhile.
 * SIGUSR2 writes the records so far to MERINO_PHASES_FILE as JSON and forgets them.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance, PerformanceObserver } from 'node:perf_hooks';

const outputFile = process.env.MERINO_PHASES_FILE;
let current;
let records = [];

function mark(name) {
  if (current !== undefined && current[name] === undefined) current[name] = performance.now() - current.began;
}

diagnosticsChannel.subscribe('http.server.request.start', ({ request }) => {
  current = request.url.startsWith('/v1/chat/completions')
    ? { began: performance.now(), sqlBefore: 0, sqlAfter: 0, garbageCollection: 0 }
    : undefined;
});
diagnosticsChannel.subscribe('undici:request:create', () => mark('upstream'));
diagnosticsChannel.subscribe('undici:request:bodySent', () => mark('sent'));
diagnosticsChannel.subscribe('undici:request:headers', () => mark('headers'));
diagnosticsChannel.subscribe('undici:request:trailers', () => mark('answered'));
diagnosticsChannel.subscribe('http.server.response.finish', () => {
  if (current === undefined) return;
  mark('finished');
  records.push(current);
  current = undefined;
});

new PerformanceObserver((list) => {
  if (current === undefined) return;
  for (const entry of list.getEntries()) current.garbageCollection += entry.duration;
}).observe({ entryTypes: ['gc'] });

/** The server's own better-sqlite3 (the same module instance its imports get): each statement timed. */
function timeSqliteStatements() {
  const require = createRequire(path.join(process.cwd(), 'package.json'));
  const Database = require('better-sqlite3');
  const prepare = Database.prototype.prepare;
  let statementPrototype;
  Database.prototype.prepare = function (...parameters) {
    const statement = prepare.apply(this, parameters);
    if (statementPrototype === undefined) {
      statementPrototype = Object.getPrototypeOf(statement);
      for (const method of ['run', 'get', 'all', 'iterate']) {
        const original = statementPrototype[method];
        statementPrototype[method] = function (...values) {
          const started = performance.now();
          try {
            return original.apply(this, values);
          } finally {
            if (current !== undefined) {
              const spent = performance.now() - started;
              if (current.upstream === undefined) current.sqlBefore += spent;
              else if (current.answered !== undefined) current.sqlAfter += spent;
            }
          }
        };
      }
    }
    return statement;
  };
}

timeSqliteStatements();
process.on('SIGUSR2', () => {
  if (outputFile !== undefined) fs.writeFileSync(outputFile, JSON.stringify(records));
  records = [];
});
