/**
 * Children die with the runner, even when it is killed with SIGKILL: each child is started through
 * `setpriv --pdeathsig KILL` (util-linux), which asks the kernel to send it SIGKILL when its parent
 * (the runner) dies and then execs the real command, so the child keeps setpriv's pid and process
 * group. Where setpriv is missing (not Linux, or util-linux older than 2.33) children start as
 * before, and a later run finds and stops them by their mark (marked.ts).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

let found: string | null | undefined;

/** The setpriv binary that knows --pdeathsig, or undefined. */
export function setprivPath(): string | undefined {
  if (found !== undefined) return found ?? undefined;
  found = null;
  if (process.platform !== 'linux') return undefined;
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/bin'].filter(Boolean);
  for (const dir of dirs) {
    const candidate = path.join(dir, 'setpriv');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const help = spawnSync(candidate, ['--help'], { encoding: 'utf8', timeout: 5000 });
    if (`${help.stdout}${help.stderr}`.includes('--pdeathsig')) found = candidate;
    break;
  }
  return found ?? undefined;
}

/** `launch` started through setpriv --pdeathsig KILL where setpriv is available. */
export function withParentDeath<L extends { command: string; args: string[] }>(launch: L): L {
  const setpriv = setprivPath();
  if (!setpriv) return launch;
  return { ...launch, command: setpriv, args: ['--pdeathsig', 'KILL', '--', launch.command, ...launch.args] };
}
