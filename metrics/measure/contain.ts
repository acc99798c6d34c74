/**
 * Containment of a sample's process tree without cgroups. Each sample's command starts under
 * `coldstart-contain` (contain/coldstart-contain.c), a child subreaper: whatever the command starts
 * stays in the helper's tree, even a daemon that left the process group and session with `setsid`
 * and dropped its environment (and with it the COLDSTART_OWNER mark), and the helper kills all of it
 * once the command ends. The helper is built on first use with the system's C compiler into
 * .runtimes/ (a name carrying the source's hash, so a changed source is rebuilt). Where it cannot be
 * built (not Linux, no C compiler) or COLDSTART_CONTAIN=0, a sample starts through
 * `setpriv --pdeathsig KILL` as before and only the mark finds its strays (marked.ts).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES_DIR } from '../plan/runtimes.ts';
import { startable, withParentDeath } from './parent-death.ts';

const SOURCE = fileURLToPath(new URL('./contain/coldstart-contain.c', import.meta.url));
const COMPILERS = ['cc', 'gcc', 'clang'];

let built: string | null | undefined;

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/** The helper binary, built from its source on first use; undefined where it cannot be (then samples fall back to the mark). */
export function containPath(): string | undefined {
  if (built !== undefined) return built ?? undefined;
  built = null;
  if (process.platform !== 'linux' || process.env.COLDSTART_CONTAIN === '0') return undefined;
  let source: Buffer;
  try {
    source = readFileSync(SOURCE);
  } catch {
    return undefined;
  }
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 12);
  const dir = path.join(RUNTIMES_DIR, 'contain');
  const binary = path.join(dir, `coldstart-contain-${hash}`);
  if (executable(binary)) return (built = binary);
  const compiler = COMPILERS.map(onPath).find(Boolean);
  if (!compiler) return undefined;
  try {
    mkdirSync(dir, { recursive: true });
  } catch {
    return undefined;
  }
  // several runners may build at once: each compiles to its own name and renames it into place
  const temporary = `${binary}.tmp-${process.pid}`;
  const compiled = spawnSync(compiler, ['-O2', '-o', temporary, SOURCE], { stdio: 'ignore', timeout: 60_000 });
  if (compiled.status !== 0 || !executable(temporary)) {
    rmSync(temporary, { force: true });
    return undefined;
  }
  renameSync(temporary, binary);
  return (built = binary);
}

/**
 * `launch` started under the containment helper where there is one, else through setpriv's
 * parent-death signal (parent-death.ts). A command that cannot be started is left as it is, so that
 * the spawn itself fails with its own error. `contained` says which.
 */
export function withContainment<L extends { command: string; args: string[]; env?: NodeJS.ProcessEnv }>(
  launch: L,
): L & { contained: boolean } {
  const helper = containPath();
  if (!helper || !startable(launch.command, launch.env)) return { ...withParentDeath(launch), contained: false };
  return { ...launch, command: helper, args: [launch.command, ...launch.args], contained: true };
}

/** The command's pid under a helper of pid `helper` (its one direct child), once it has forked; undefined before or after. */
export function containedPid(helper: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${helper}/task/${helper}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    if (children.length > 0) return Number(children[0]);
  } catch {
    // no CONFIG_PROC_CHILDREN: look for the parent in every process's stat
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  let first: number | undefined;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === helper && (first === undefined || Number(entry) < first)) first = Number(entry);
    } catch {
      // gone
    }
  }
  return first;
}
