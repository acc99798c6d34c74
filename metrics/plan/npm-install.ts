/**
 * The one way coldstart installs npm packages into a folder of its own (.runtimes/, .versions/, a
 * bisect's copy of an app): `npm install` (or `npm ci`) with no audit, no funding notes and only
 * npm's errors on stderr, bounded in time and in the output kept, and one mapping of npm's failures
 * to a one-line reason: the network, a version the registry does not have (ETARGET, ENOVERSIONS,
 * E404), or npm's own telling line. Callers add what they install and for which option.
 */
import { spawnSync } from 'node:child_process';
import { CHILD_DEADLINES_S, childDeadlineMs, childFailureLine, deadlinePassed } from '../core/child-deadlines.ts';

/**
 * The most bytes of a registry answer the tool reads itself (`npm view PKG versions --json`): a package with 10,000
 * releases lists them in about 200 KB; past this, npm is stopped and the answer refused.
 */
export const REGISTRY_ANSWER_BYTES = 4 * 1024 * 1024;
/** How long `npm view` may take to answer, ms, the registry's answer included (core/child-deadlines.ts). */
export const REGISTRY_DEADLINE_MS = CHILD_DEADLINES_S.registry * 1000;

/** npm's stderr kept at most (with --loglevel=error it is a few lines; a flood is cut, not buffered whole). */
export const NPM_OUTPUT_BYTES = 1_048_576;

export interface NpmInstallOptions {
  /** true: exactly the folder's lockfile (`npm ci`) instead of `npm install` */
  ci?: boolean;
  /** run with `--prefix` (default) or in the folder as its working directory (an app's copy: its own .npmrc applies) */
  in?: 'prefix' | 'cwd';
  /** `exact`: written to the folder's package.json and lockfile as exact versions; `none`: `--no-save`; default `exact` */
  save?: 'exact' | 'none';
  /** false: no package-lock.json written (`--no-package-lock`) */
  lockfile?: boolean;
  /** run the packages' install scripts (a native addon's build); default false (`--ignore-scripts`) */
  scripts?: boolean;
  /** how long npm may take (default the table's, core/child-deadlines.ts: 10 minutes) */
  waitMs?: number;
  /** default this process's environment */
  env?: NodeJS.ProcessEnv;
}

/** Why an install failed: `network` (the registry not reached), `version` (no such version or package), `other`. */
export type NpmFailure = { kind: 'network' | 'version' | 'other'; reason: string };
export type NpmOutcome = { ok: true } | ({ ok: false } & NpmFailure);

/** npm's telling error line: the first that is not a code, a stack frame or the log file's name. */
export function npmErrorLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) =>
      l
        .replace(/^npm (error|ERR!)\s*/i, '')
        .replace(/^notarget\s+/, '')
        .trim(),
    )
    .filter((l) => l && !/^npm warn/i.test(l) && !/^(code|errno|syscall|at |A complete log|\{|\}|[a-zA-Z]+: ['\d])/.test(l));
  return lines[0] ?? '';
}

const NETWORK_CODES = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT)\b/;
const VERSION_CODES = /\bcode (ETARGET|ENOVERSIONS|E404)\b/i;

/** One failure of npm as its kind and one line: the telling line, else the exit status. */
export function npmFailure(stderr: string, status: number | null, error?: Error): NpmFailure {
  const line = npmErrorLine(stderr).slice(0, 500);
  if (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOBUFS') return { kind: 'other', reason: `npm wrote more than ${NPM_OUTPUT_BYTES} bytes of errors (cut)` };
    if (code === 'ETIMEDOUT') return { kind: 'other', reason: `npm did not finish in time (${error.message})` };
    return { kind: 'other', reason: error.message };
  }
  const reason = line || `npm exited with ${status}`;
  if (VERSION_CODES.test(stderr.replace(/npm (error|ERR!)\s*/gi, ''))) return { kind: 'version', reason };
  if (NETWORK_CODES.test(stderr)) return { kind: 'network', reason: `the registry cannot be reached: ${reason}` };
  return { kind: 'other', reason };
}

/** The arguments of one install: fixed flags first, the folder, then the specs. */
export function npmInstallArgs(prefix: string, specs: readonly string[], options: NpmInstallOptions = {}): string[] {
  const command = options.ci ? 'ci' : 'install';
  return [
    command,
    ...(options.in === 'cwd' ? [] : ['--prefix', prefix]),
    ...(command === 'ci' ? [] : options.save === 'none' ? ['--no-save'] : ['--save-exact']),
    ...(options.lockfile === false ? ['--no-package-lock'] : []),
    ...(options.scripts ? [] : ['--ignore-scripts']),
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    ...specs,
  ];
}

/** Install `specs` (or, with none, the folder's own dependencies) into `prefix`; a failure is an outcome, never an exception. */
export function npmInstall(prefix: string, specs: readonly string[], options: NpmInstallOptions = {}): NpmOutcome {
  const env = options.env ?? process.env;
  const deadlineMs = options.waitMs ?? childDeadlineMs('npmInstall', env);
  const npm = spawnSync('npm', npmInstallArgs(prefix, specs, options), {
    encoding: 'utf8',
    timeout: deadlineMs,
    maxBuffer: NPM_OUTPUT_BYTES,
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
    shell: process.platform === 'win32',
    ...(options.in === 'cwd' ? { cwd: prefix } : {}),
  });
  if (!npm.error && npm.status === 0) return { ok: true };
  if (deadlinePassed(npm))
    return { ok: false, kind: 'other', reason: childFailureLine(`npm ${options.ci ? 'ci' : 'install'}`, npm, deadlineMs)! };
  return { ok: false, ...npmFailure(npm.stderr, npm.status, npm.error) };
}
