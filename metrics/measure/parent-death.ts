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
    if (!executable(candidate)) continue;
    const help = spawnSync(candidate, ['--help'], { encoding: 'utf8', timeout: 5000 });
    if (`${help.stdout}${help.stderr}`.includes('--pdeathsig')) found = candidate;
    break;
  }
  return found ?? undefined;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Can `command` be started (a path, or a name on the PATH of `env`)? */
export function startable(command: string, env: NodeJS.ProcessEnv | undefined): boolean {
  if (command.includes('/')) return executable(command);
  return (env?.PATH ?? process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && executable(path.join(dir, command)));
}

/**
 * `launch` started through setpriv --pdeathsig KILL where setpriv is available. A command that cannot
 * be started is left as it is, so that the spawn itself fails with its own error.
 */
export function withParentDeath<L extends { command: string; args: string[]; env?: NodeJS.ProcessEnv }>(launch: L): L {
  const setpriv = setprivPath();
  if (!setpriv || !startable(launch.command, launch.env)) return launch;
  return { ...launch, command: setpriv, args: ['--pdeathsig', 'KILL', '--', launch.command, ...launch.args] };
}
