/**
 * Containment of a sample's process tree without cgroups. Each sample's command starts under
 * `coldstart-contain` (contain/coldstart-contain.c). Where the runner is root or user namespaces are
 * allowed, the helper gives the command its own PID namespace, whose init (the helper's own child)
 * the app cannot kill or stop, and whose end kills every process in it, a daemon that left its
 * session with `setsid` and dropped its environment (and with it the COLDSTART_OWNER mark) included.
 * Elsewhere the helper is a child subreaper that kills its whole tree once the command ends. The
 * helper is built on first use with the system's C compiler into .runtimes/ (a name carrying the
 * source's hash, so a changed source is rebuilt). Where it cannot be built (no C compiler), util-linux
 * `unshare` makes the namespace if it can; else a sample starts through `setpriv --pdeathsig KILL`
 * as before and only the mark finds its strays (marked.ts). The weaker ones say so once on stderr.
 * Whatever the helper's state, the runner kills what is still below it when the sample ends (killBelow).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES_DIR } from '../plan/runtimes.ts';
import { startable, withParentDeath } from './parent-death.ts';
import { statOf } from './process-tree.ts';
import { sweepCgroupParent } from './sweep-cgroup.ts';

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
 * How a sample's processes are contained, best first:
 * - `pid-namespace`: the helper with its own PID namespace (root, or user namespaces allowed): its
 *   init is the command's parent, which the app cannot kill or stop, and whose exit kills the rest;
 * - `unshare`: no helper (no C compiler), util-linux `unshare --pid --fork --kill-child`: the same
 *   namespace, with the command itself as its init (it ignores SIGTERM, so the runner stops it with
 *   SIGKILL);
 * - `helper`: the helper as a subreaper without a namespace: the app can SIGKILL the helper, and an
 *   orphan of it that also left its session and emptied its environment can then outlive the sample;
 * - `mark`: setpriv's parent-death signal and the COLDSTART_OWNER mark only.
 * COLDSTART_CONTAIN=no-namespace forces `helper`, COLDSTART_CONTAIN=no-helper what a machine with no
 * C compiler gets, and COLDSTART_CONTAIN=0 `mark` (the tests' controls).
 */
export type Containment = 'pid-namespace' | 'unshare' | 'helper' | 'mark';

const UNSHARE_ARGS = ['--pid', '--fork', '--kill-child', '--mount-proc', '--'];

let probed: { helper: boolean; unshare: boolean } | undefined;

/** Can the helper, and util-linux's unshare, make a PID namespace here? Probed once per runner. */
function namespaces(helper: string | undefined): { helper: boolean; unshare: boolean } {
  if (probed) return probed;
  const works = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 }).status === 0;
  const unshare = onPath('unshare');
  probed = {
    helper: helper !== undefined && works(helper, ['--probe-pid-ns']),
    // only where there is no helper: the probe starts a node
    unshare: helper === undefined && unshare !== undefined && works(unshare, [...UNSHARE_ARGS, process.execPath, '-e', '']),
  };
  return probed;
}

let warned = false;

/** Say once on stderr what a weaker containment cannot do. */
function warnOnce(line: string): void {
  if (warned) return;
  warned = true;
  process.stderr.write(`coldstart: ${line}\n`);
}

/**
 * The containment samples get on this machine; `hostPid`: the command must keep the pid the runner
 * sees (valgrind's vgdb finds it by that pid), so no namespace of its own.
 */
export function containment(hostPid = false): Containment {
  if (process.platform !== 'linux') return 'mark';
  const forced = process.env.COLDSTART_CONTAIN;
  if (forced === '0') return 'mark';
  const helper = forced === 'no-helper' ? undefined : containPath();
  const can = forced === 'no-namespace' ? { helper: false, unshare: false } : namespaces(helper);
  if (helper && can.helper && !hostPid) return 'pid-namespace';
  if (!helper && can.unshare && !hostPid) return 'unshare';
  return helper ? 'helper' : 'mark';
}

/** What each weaker containment says once. */
const WEAKER: Partial<Record<Containment, string>> = {
  helper:
    'containment: no PID namespace here (it needs root or user namespaces) and no cgroup the runner may make: ' +
    'an app that kills its containment helper can leave a daemon (own session, empty environment) running after its sample',
  mark:
    'containment: no containment helper (no C compiler) and no PID namespace here: ' +
    'a daemon an app starts in its own session with an empty environment can outlive its sample',
};

/**
 * `launch` started under the containment of this machine (containment()). A command that cannot be
 * started is left as it is, so that the spawn itself fails with its own error. `contained` says
 * whether a helper or unshare stands between the runner and the command, `depth` how many processes
 * down the command is (containedPid), `selfInit` that the command is its namespace's init (stopped
 * with SIGKILL: an init ignores SIGTERM).
 */
export function withContainment<L extends { command: string; args: string[]; env?: NodeJS.ProcessEnv }>(
  launch: L,
  options: { hostPid?: boolean; cgroupProcs?: string } = {},
): L & { contained: boolean; depth: number; selfInit: boolean; containment: Containment } {
  const how = containment(options.hostPid);
  // what this machine allows, not what one kind of sample opts out of (a counted one keeps its pid);
  // the helper without a namespace is as strong where the sample's cgroup catches the orphans
  const machine = containment();
  const weaker = machine === 'helper' && sweepCgroupParent() ? undefined : WEAKER[machine];
  if (weaker && process.platform === 'linux' && process.env.COLDSTART_CONTAIN !== '0') warnOnce(weaker);
  const plain = { contained: false, depth: 0, selfInit: false, containment: how };
  if (!startable(launch.command, launch.env)) return { ...launch, ...plain };
  if (how === 'pid-namespace') {
    return {
      ...launch,
      command: containPath()!,
      args: ['--pid-ns', launch.command, ...launch.args],
      contained: true,
      depth: 2,
      selfInit: false,
      containment: how,
    };
  }
  if (how === 'helper') {
    const join = options.cgroupProcs ? ['--cgroup', options.cgroupProcs] : [];
    return {
      ...launch,
      command: containPath()!,
      args: [...join, launch.command, ...launch.args],
      contained: true,
      depth: 1,
      selfInit: false,
      containment: how,
    };
  }
  if (how === 'unshare') {
    // setpriv: unshare itself dies with the runner, and its --kill-child takes the namespace with it
    const inner = { ...launch, command: onPath('unshare')!, args: [...UNSHARE_ARGS, launch.command, ...launch.args] };
    return { ...withParentDeath(inner), contained: false, depth: 1, selfInit: true, containment: how };
  }
  return { ...withParentDeath(launch), ...plain };
}

/** The command's pid `depth` processes below `top` (each level the first child), once it has forked; undefined before or after. */
export function containedPid(top: number, depth = 1): number | undefined {
  let at: number | undefined = top;
  for (let level = 0; level < depth && at !== undefined; level++) at = firstChild(at);
  return at;
}

/** The oldest child of `parent`. */
function firstChild(parent: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
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
    if (statOf(Number(entry))?.ppid === parent && (first === undefined || Number(entry) < first)) first = Number(entry);
  }
  return first;
}
