/**
 * The four kinds of holder a leftover sweep must tell apart when it finds work still marked as
 * being done: a process of this machine that has exited, a live one of this machine, one of another
 * host whose lease lapsed a minute ago, and one of another host whose lease runs for another hour.
 * Only the first and the third are known to be gone; the sweep may end only their work.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { runnerOwnerName } from '../../src/ingestion/runner-identity.js';

export interface LeaseHolder {
  /** A runner's name, `host:pid:suffix`, as the sweep reads it. */
  owner: string;
  leaseExpiresAt: string;
}

export interface LeaseHolders {
  deadHere: LeaseHolder;
  liveHere: LeaseHolder;
  lapsedElsewhere: LeaseHolder;
  liveElsewhere: LeaseHolder;
}

/**
 * Holders of the four kinds, named by real processes of this machine: one that has already exited
 * and one that lives on, pushed onto `children` for the test's end to kill.
 */
export async function leaseHoldersOfEveryKind(children: ChildProcess[]): Promise<LeaseHolders> {
  const machine = runnerOwnerName().split(':')[0];
  const dead = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => dead.on('exit', resolve));
  const live = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
  children.push(live);
  const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
  const aMinuteAgo = new Date(Date.now() - 60_000).toISOString();
  return {
    deadHere: { owner: `${machine}:${dead.pid}:aaaaaaaaaaaa`, leaseExpiresAt: inAnHour },
    liveHere: { owner: `${machine}:${live.pid}:bbbbbbbbbbbb`, leaseExpiresAt: inAnHour },
    lapsedElsewhere: { owner: 'another-host:4242:cccccccccccc', leaseExpiresAt: aMinuteAgo },
    liveElsewhere: { owner: 'another-host:4243:dddddddddddd', leaseExpiresAt: inAnHour },
  };
}
