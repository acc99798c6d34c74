/**
 * A long native build that a Ctrl-C or SIGTERM stops at once with nothing left behind: the command runs in
 * its own process group under a small sh supervisor, which on SIGINT/SIGTERM (or when the process that
 * started it is gone) kills that whole group (npm, cmake, make, g++) and removes the partial folder. It is
 * synchronous (spawnSync), like the rest of the plan stage; the supervisor, not the caller, does the
 * stopping, so it works while the caller's event loop is blocked.
 */
import { spawn, spawnSync } from 'node:child_process';
import { childDeadlineMs } from '../core/child-deadlines.ts';

/** Seconds between two progress lines of a build. */
const PROGRESS_EVERY_S = 15;

// $1 caller pid, $2 partial folder, $3 label, $4 progress seconds, $5 log file (in the partial folder), $6 deadline seconds;
// the rest is the command
const SUPERVISOR = `
parent=$1; partial=$2; label=$3; every=$4; log=$5; deadline=$6; shift 6
mkdir -p -- "$partial"
setsid "$@" >"$log" 2>&1 </dev/null &
child=$!
stop() {
  trap '' TERM INT HUP
  kill -s KILL -- "-$child" 2>/dev/null; kill -s KILL "$child" 2>/dev/null; wait "$child" 2>/dev/null
  mv -- "$partial" "$partial.removing" 2>/dev/null && rm -rf -- "$partial.removing"
  rm -rf -- "$partial"; exit "$1"
}
trap 'stop 143' TERM; trap 'stop 130' INT; trap 'stop 129' HUP
started=$(date +%s); next=$every
while kill -0 "$child" 2>/dev/null; do
  # the caller gone: this shell reparented (a caller that died stays a zombie where no init reaps it)
  if [ -r /proc/$$/stat ]; then read -r _ _ _ ppid _ < /proc/$$/stat; [ "$ppid" = "$parent" ] || stop 143
  else kill -0 "$parent" 2>/dev/null || stop 143; fi
  sleep 0.2
  elapsed=$(($(date +%s) - started))
  if [ "$elapsed" -ge "$deadline" ]; then echo "  $label: did not end within its $deadline s deadline: stopped it" >&2; stop 124; fi
  if [ "$elapsed" -ge "$next" ]; then echo "  $label: still building, $elapsed s" >&2; next=$((elapsed + every)); fi
done
wait "$child"
status=$?
[ "$status" -eq 0 ] || rm -rf -- "$partial"
exit "$status"
`;

interface BuildOutcome {
  ok: boolean;
  /** the exit status, or the signal's 128+n when the build was stopped, or BUILD_PAST_DEADLINE */
  status: number | null;
}

/** The supervisor's status for a build it stopped at its deadline (timeout(1)'s). */
export const BUILD_PAST_DEADLINE = 124;

/** The options of a build: where it writes, what it is called, where its output goes, and its deadline, s. */
interface BuildOptions {
  partial: string;
  label: string;
  logFile: string;
  /** past it the supervisor stops the build as a SIGTERM does (status BUILD_PAST_DEADLINE); default the table's (ricBuild) */
  deadlineS?: number;
  env?: NodeJS.ProcessEnv;
  everyS?: number;
}

/** A build's deadline, whole seconds: the one given, else core/child-deadlines.ts's (COLDSTART_CHILD_DEADLINE_S for all). */
export function buildDeadlineS(deadlineS?: number): number {
  return Math.max(1, Math.ceil(deadlineS ?? childDeadlineMs('ricBuild', process.env) / 1000));
}

function supervisorArgs(command: string, args: readonly string[], options: BuildOptions): string[] {
  const every = String(options.everyS ?? PROGRESS_EVERY_S);
  const deadline = String(buildDeadlineS(options.deadlineS));
  return ['-c', SUPERVISOR, 'sh', String(process.pid), options.partial, options.label, every, options.logFile, deadline, command, ...args];
}

/**
 * Run `command args` as an interruptible build writing into `partial` (removed on failure or interruption);
 * its output goes to `logFile` (inside `partial`), a progress line to stderr every `everyS` seconds.
 */
export function runInterruptibleBuild(command: string, args: readonly string[], options: BuildOptions & { cwd?: string }): BuildOutcome {
  const run = spawnSync('sh', supervisorArgs(command, args, options), {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: options.env ?? process.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  return { ok: run.status === 0, status: run.status };
}

/**
 * The same build without blocking the event loop: a SIGINT, SIGTERM or SIGHUP this process receives
 * meanwhile (even one a handler of the command catches) is passed on to the supervisor, which stops the
 * build at once; the outcome's status is then 128 + the signal's number.
 */
export async function runInterruptibleBuildAsync(command: string, args: readonly string[], options: BuildOptions): Promise<BuildOutcome> {
  const supervisor = spawn('sh', supervisorArgs(command, args, options), {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: options.env ?? process.env,
  });
  const forward = () => supervisor.kill('SIGTERM');
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const signal of signals) process.on(signal, forward);
  try {
    const status = await new Promise<number | null>((resolve) => {
      supervisor.on('error', () => resolve(null));
      supervisor.on('exit', (code) => resolve(code));
    });
    return { ok: status === 0, status };
  } finally {
    for (const signal of signals) process.off(signal, forward);
  }
}
