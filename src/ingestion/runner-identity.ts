/**
 * Names an ingestion runner in `lease_owner`, and tells from such a name whether its process has
 * died on this machine. A restarted server then takes back at once the jobs its dead predecessor
 * held, instead of waiting for their leases to run out, while the jobs of live processes, and of
 * processes it cannot see (other hosts, other containers), keep waiting for their leases.
 *
 * A name is `<machine>:<pid>:<random>`. A pid names one process only within one boot of one PID
 * namespace, so the machine part is the host name with, where Linux tells them, the boot id and
 * the PID namespace: two containers sharing a host name never take each other's pids for their
 * own. Errors lean towards "alive": a job whose holder cannot be proven dead waits for its lease.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';

/** Reads a small system file, or gives undefined where the system has none (not Linux, no /proc). */
function readSystemValue(read: () => string): string | undefined {
  try {
    return read().trim();
  } catch {
    return undefined;
  }
}

/** Everything that must match for a pid in a lease owner's name to mean a process we can look at. */
function machineName(): string {
  const host = os.hostname().replace(/[^A-Za-z0-9.-]/g, '_');
  const bootId = readSystemValue(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'))?.replace(/[^0-9a-f]/g, '');
  // The link reads `pid:[4026531836]`; its number names the namespace.
  const pidNamespace = readSystemValue(() => readlinkSync('/proc/self/ns/pid'))?.replace(/\D/g, '');
  return [host, bootId, pidNamespace].filter((part) => part !== undefined && part !== '').join('/');
}

const MACHINE = machineName();

/** A fresh runner name: unique across processes and across runners of one process. */
export function runnerOwnerName(): string {
  return `${MACHINE}:${process.pid}:${randomBytes(6).toString('hex')}`;
}

/** The pid in `owner` when the name was made on this machine (this boot, this PID namespace); undefined otherwise. */
export function localProcessIdOf(owner: string): number | undefined {
  const randomStart = owner.lastIndexOf(':');
  const pidStart = owner.lastIndexOf(':', randomStart - 1);
  if (pidStart <= 0 || owner.slice(0, pidStart) !== MACHINE) return undefined;
  const pidText = owner.slice(pidStart + 1, randomStart);
  if (!/^[1-9][0-9]{0,9}$/.test(pidText)) return undefined;
  return Number(pidText);
}

/**
 * Whether `owner` names a process of this machine that no longer exists. Signal 0 checks for the
 * process without touching it: ESRCH means there is none; EPERM means it exists under another user.
 */
export function isDeadLocalOwner(owner: string): boolean {
  const pid = localProcessIdOf(owner);
  if (pid === undefined || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: unknown }).code === 'ESRCH';
  }
}
