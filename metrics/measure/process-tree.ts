/**
 * A process's tree as /proc shows it (parent links), and killing all of it whatever state its top is in.
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * SIGKILL every process below `top` (found through /proc's parent links), round after round until
 * none is left, then `top` itself: whatever state `top` is in (stopped included), nothing of its tree
 * outlives it. Each round's orphans go to `top` while it lives (a subreaper), so the next round finds them.
 */
export function killBelow(top: number): void {
  for (let round = 0; round < 50; round++) {
    const below = descendants(top);
    if (below.length === 0) break;
    for (const pid of below) signal(pid, 'SIGKILL');
  }
  signal(top, 'SIGKILL');
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone
  }
}

/** Every live (not zombie) process whose parent chain reaches `top`. */
function descendants(top: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const parsed = statOf(Number(entry));
    if (!parsed || parsed.state === 'Z') continue;
    const list = children.get(parsed.ppid) ?? [];
    list.push(Number(entry));
    children.set(parsed.ppid, list);
  }
  const found: number[] = [];
  const queue = [top];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

export function statOf(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: state ?? '', ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}
