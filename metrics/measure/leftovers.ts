/**
 * What a killed run left behind, found and cleaned by the next run: scratch folders in the temp
 * folder, processes carrying a dead runner's mark (servers in flight and their daemonized
 * grandchildren) and sample cgroups. Only what belongs to a runner that is no longer alive (pid and
 * start time) is touched: runs that share the machine keep theirs.
 */
import { readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sweepStale, sweepStaleCgroups } from './limits/detect.ts';
import { killOrphans } from './marked.ts';
import { ownerAlive, ownerTag, parseOwnerTag } from './owner.ts';
import { sweepCgroupParent } from './sweep-cgroup.ts';

const SCRATCH_PREFIX = 'coldstart-run-';
const SCRATCH = /^coldstart-run-(\d+(?:\.\d+)?)-[A-Za-z0-9]{6}$/;

/** The prefix of this runner's scratch folder (mkdtemp adds six characters). */
export function scratchPrefix(): string {
  return path.join(os.tmpdir(), `${SCRATCH_PREFIX}${ownerTag()}-`);
}

function sweepScratch(): string[] {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(os.tmpdir());
  } catch {
    return removed;
  }
  for (const entry of entries) {
    const owner = parseOwnerTag(SCRATCH.exec(entry)?.[1] ?? '');
    if (!owner || ownerAlive(owner)) continue;
    try {
      rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
      removed.push(entry);
    } catch {
      // left for the next run
    }
  }
  return removed;
}

/** Clean what dead runs left; one line per kind of leftover found. */
export function cleanLeftovers(say: (line: string) => void): void {
  const processes = killOrphans();
  if (processes.length > 0) say(`stopped ${processes.length} process(es) a killed run left running (pid ${processes.join(', ')})`);
  const sweepParent = sweepCgroupParent();
  const cgroups = [...sweepStaleCgroups(), ...(sweepParent ? sweepStale(sweepParent) : [])];
  if (cgroups.length > 0) say(`removed ${cgroups.length} sample cgroup(s) a killed run left: ${cgroups.join(', ')}`);
  const scratch = sweepScratch();
  if (scratch.length > 0) say(`removed ${scratch.length} scratch folder(s) a killed run left in ${os.tmpdir()}: ${scratch.join(', ')}`);
}
