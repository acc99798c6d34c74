/**
 * Every child a run starts carries COLDSTART_OWNER=<runner pid>.<start>-<sample> in its environment,
 * and so does everything it starts (environments are inherited), including a grandchild that left
 * the process group with setsid. After each sample the runner kills what still carries that
 * sample's mark; a later run kills what carries the mark of a runner that is no longer alive.
 * Linux /proc only; elsewhere nothing is found.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { ownerAlive, ownerTag, parseOwnerTag } from './owner.ts';

export const OWNER_ENV = 'COLDSTART_OWNER';

let samples = 0;

/** The mark of the next sample of this runner. */
export function nextSampleMark(): string {
  samples += 1;
  return `${ownerTag()}-${samples}`;
}

/** Live processes (not zombies) whose COLDSTART_OWNER passes `match`, with the value. */
export function markedProcesses(match: (mark: string) => boolean): { pid: number; mark: string }[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: { pid: number; mark: string }[] = [];
  const prefix = `${OWNER_ENV}=`;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    const inside = environ.indexOf(`\0${prefix}`);
    const at = environ.startsWith(prefix) ? 0 : inside < 0 ? -1 : inside + 1;
    if (at < 0) continue;
    const end = environ.indexOf('\0', at);
    const mark = environ.slice(at + prefix.length, end < 0 ? undefined : end);
    if (match(mark)) found.push({ pid: Number(entry), mark });
  }
  return found;
}

function kill(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** Kill every process that carries `mark` (a sample's); the pids killed. */
export function killMarked(mark: string): number[] {
  const pids = markedProcesses((m) => m === mark).map((p) => p.pid);
  kill(pids);
  return pids;
}

/** Kill every marked process whose runner is no longer alive; the pids killed. */
export function killOrphans(): number[] {
  const pids = markedProcesses((mark) => {
    const owner = parseOwnerTag(mark.replace(/-\d+$/, ''));
    return owner !== undefined && !ownerAlive(owner);
  }).map((p) => p.pid);
  kill(pids);
  return pids;
}
