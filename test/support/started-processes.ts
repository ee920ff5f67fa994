/**
 * What a crash suite starts in a test and must end after it, whatever failed: server processes
 * (killed, as a crash would end them), in-process servers (closed) and helper child processes
 * (killed). A test pushes onto the lists; its afterEach calls end() before dropping the database
 * they all use.
 */
import type { ChildProcess } from 'node:child_process';
import type { ServerProcess } from './server-process.js';
import type { TestServer } from './test-server.js';

export interface StartedProcesses {
  processes: ServerProcess[];
  servers: TestServer[];
  children: ChildProcess[];
  /** Ends everything on the lists, in that order, and empties them for the next test. */
  end(): Promise<void>;
}

export function startedProcesses(): StartedProcesses {
  const started: StartedProcesses = {
    processes: [],
    servers: [],
    children: [],
    async end() {
      for (const server of started.processes.splice(0)) await server.kill();
      for (const server of started.servers.splice(0)) await server.close();
      for (const child of started.children.splice(0)) child.kill('SIGKILL');
    },
  };
  return started;
}
