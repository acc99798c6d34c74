/**
 * A process's CPU time read from outside it, whatever started it (the probe's own loop, the Runtime
 * Interface Client, a shell that exec'd it): the sum over its threads of the time the scheduler
 * ran them (`/proc/<pid>/task/<tid>/schedstat`, first field, ns). Linux only; undefined elsewhere
 * or once the process is gone.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  for (const tid of tids) {
    try {
      const first = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0];
      const value = Number(first);
      if (Number.isFinite(value)) ns += value;
    } catch {
      // a thread that ended between the listing and the read used no more CPU
    }
  }
  return ns / 1e6;
}
