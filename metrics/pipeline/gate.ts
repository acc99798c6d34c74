/**
 * `coldstart gate`: base against head of the repository it is run in. Both commits are exported with
 * `git archive` into one scratch folder, as `<scratch>/a` (base) and `<scratch>/b` (head): paths that differ
 * in one same-length component, so resolving them costs the same instructions. Each side is installed from
 * its own lockfile (`npm ci`, its node_modules cached by the lockfile's hash under WORK_ROOT/.cache/gate-npm),
 * then counted by `measure --measure instructions` (one counted sample a round), rounds interleaved: base,
 * head, base, head. The user's working folder is only read by git. The verdict is pipeline/gate-verdict.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExitCodeError, UsageError } from '../core/errors.ts';
import { EXIT_FAILED_SAMPLES } from '../core/exit-codes.ts';
import { oneLine } from '../core/escape.ts';
import { PROJECT_ROOT, WORK_ROOT } from '../core/paths.ts';
import { findCountTools } from '../measure/counting.ts';
import { exitCodeOfSignal, INTERRUPT_SIGNALS } from '../measure/children.ts';
import { ownedDir, ownedPath, writeAll, writeOwnedFile } from '../store/files.ts';
import { checkOwnFolder, makeWritableDir, type FolderKind } from '../store/out-dir.ts';
import { RUN_FOLDER } from '../store/meta-file.ts';
import { APP_SOURCE, type Cell } from '../core/cell.ts';
import { storedValue } from '../core/dimensions.ts';
import { readSamples } from '../store/samples-file.ts';
import {
  checkFrameworkFrom,
  frameworkRunArgs,
  installFrameworkSide,
  sideName,
  type FrameworkFrom,
  type FrameworkPackage,
  type GateChild,
} from './gate-framework.ts';
import {
  GATE_PHASES,
  gateMarkdown,
  gateOutputs,
  judge,
  median,
  phasesOf,
  regressionsOf,
  type GateCell,
  type GatePhase,
  type GateReport,
} from './gate-verdict.ts';
import {
  COUNT_PACKAGES_OPTION,
  failedAttribution,
  packageAttribution,
  packageOutputs,
  readPackageRound,
  withPackages,
  type GateAttribution,
} from './gate-attribute.ts';

const GATE_NPM_CACHE = path.join(WORK_ROOT, '.cache', 'gate-npm');

/** The gate's --out: its gate.json (written at the start, the report at the end) marks it as the tool's own. */
const GATE_FILE = 'gate.json';
const GATE_FOLDER: FolderKind = { what: 'a gate folder', markers: [GATE_FILE] };

/** The time allowed to export one side (git archive), to install one (npm ci), and to count one round of one side. */
export const GATE_DEADLINES_MS = { export: 10 * 60_000, install: 20 * 60_000, count: 60 * 60_000 } as const;

/** The children running now (git, tar, npm, measure): a signal to the gate stops them. */
const live = new Set<ChildProcess>();

/**
 * `command args` in `cwd` as a child the gate tracks (stopped by a signal to the gate, and with SIGTERM at
 * its deadline, SIGKILL 5 s later); resolves with its exit code and the tails of its stdout and stderr.
 */
const runChild: GateChild = (command, args, cwd, what, deadlineMs, env) => {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
    live.add(child);
    let stdout = '';
    let stderr = '';
    let late = false;
    // both bounded: what the gate reads of them is a last line, or npm pack's short JSON
    child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString('utf8')).slice(-64_000)));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    const timer = setTimeout(() => {
      late = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    }, deadlineMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      live.delete(child);
      reject(new UsageError(`${what}: ${command} could not start (${(error as NodeJS.ErrnoException).code ?? error.message})`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      live.delete(child);
      if (late) reject(new Error(`${what} did not end within its ${Math.round(deadlineMs / 1000)} s deadline and was stopped`));
      else resolve({ code, stdout, stderr });
    });
  });
};

const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

export interface GateOptions {
  readonly base: string;
  /** entries as `measure --entry` takes them, paths relative to the folder the gate is run from */
  readonly entries: readonly string[];
  readonly handlers: readonly string[];
  readonly names?: string;
  /** generated cells with the framework's package taken from each side's checkout, instead of an app */
  readonly framework?: FrameworkFrom;
  readonly rounds: number;
  readonly threshold: number;
  readonly out: string;
  /** where the scratch folder is made (default: the OS's temp folder) */
  readonly work?: string;
  /** extra `measure` options, passed as given (--request, --expect-status …) */
  readonly measureArgs: readonly string[];
  /** count with valgrind's cache simulation as well: estimated cycles beside the instructions, the ≈ ms from them */
  readonly cacheSim?: boolean;
  readonly log: (line: string) => void;
  /** the folder the gate is run from (inside the repository), node to run measure with, the CI's files */
  readonly cwd: string;
  readonly nodePath: string;
  /** the environment of the children (the CLI's own) */
  readonly env: NodeJS.ProcessEnv;
  readonly stepSummary?: string;
  readonly githubOutput?: string;
  /** one more counted round per side cut at each npm package's loading (pipeline/gate-attribute.ts) */
  readonly attribute?: boolean;
  /** aborted on a signal (its reason: the signal's name): the children are stopped, the scratch folder removed */
  readonly abort?: AbortSignal;
}

/** The signals the CLI stops a gate on (as a run: Ctrl-C, SIGTERM, a closed terminal). */
export const GATE_SIGNALS = INTERRUPT_SIGNALS;

/** The gate was stopped by a signal (its name); the CLI exits with exitCode, 128 + its number. */
export class GateAborted extends Error {
  readonly exitCode: number;
  constructor(readonly signal: string) {
    super(`gate: ${signal}: stopped; the scratch folder was removed`);
    this.exitCode = exitCodeOfSignal(signal as NodeJS.Signals);
  }
}

function git(repo: string, args: string[]): string {
  const result = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 60_000 });
  if (result.status !== 0) throw new UsageError(`git ${args[0]}: ${(result.stderr || 'failed').trim().split('\n')[0]}`);
  return result.stdout.trim();
}

/** The commit's tree into `dir`: git archive into a tar file beside it (not held in memory), unpacked there. */
async function exportSide(repo: string, commit: string, dir: string): Promise<void> {
  mkdirSync(dir);
  const tar = `${dir}.tar`;
  const what = `exporting ${commit.slice(0, 12)}`;
  const archived = await runChild(
    'git',
    ['-C', repo, 'archive', '--format=tar', `--output=${tar}`, commit],
    repo,
    what,
    GATE_DEADLINES_MS.export,
  );
  if (archived.code !== 0) throw new UsageError(`git archive ${commit.slice(0, 12)}: ${lastLine(archived.stderr) || 'failed'}`);
  const untar = await runChild('tar', ['-x', '-f', tar, '-C', dir], dir, what, GATE_DEADLINES_MS.export);
  if (untar.code !== 0) throw new Error(`tar -x: ${lastLine(untar.stderr)}`);
  rmSync(tar, { force: true });
}

/** `npm ci` in the side, unless the cache holds node_modules for the same lockfile (then copied in). */
async function installSide(dir: string, log: (line: string) => void): Promise<void> {
  const lock = path.join(dir, 'package-lock.json');
  if (!existsSync(lock)) return;
  const hash = createHash('sha256').update(readFileSync(lock)).digest('hex').slice(0, 16);
  // the cache is a folder of the tool's: no part of the entry's path may be a link (ownedDir refuses one)
  mkdirSync(GATE_NPM_CACHE, { recursive: true });
  const entry = ownedDir(GATE_NPM_CACHE, hash);
  const cached = ownedPath(entry, 'node_modules');
  if (existsSync(cached)) {
    log(`gate: node_modules from the cache (lockfile ${hash})`);
    cpSync(cached, path.join(dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    return;
  }
  log(`gate: npm ci (lockfile ${hash})`);
  const ci = await runChild('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], dir, 'npm ci', GATE_DEADLINES_MS.install);
  if (ci.code !== 0) throw new UsageError(`npm ci failed in the exported side: ${lastLine(ci.stderr)}`);
  // a lockfile without dependencies installs no node_modules: nothing to cache
  if (!existsSync(path.join(dir, 'node_modules'))) return;
  const staging = `${cached}.${randomBytes(6).toString('hex')}`;
  cpSync(path.join(dir, 'node_modules'), staging, { recursive: true, verbatimSymlinks: true });
  rmSync(cached, { recursive: true, force: true });
  renameSync(staging, cached);
}

/** What one side's rounds count: the app's entries and handlers, or the generated cells at the side's version. */
interface SideCount {
  readonly relEntries: readonly string[];
  readonly relHandlers: readonly string[];
  /** --framework-from: the side's versions folder and the version installed there */
  readonly framework?: { readonly root: string; readonly value: string };
}

/**
 * One counted round of one side in a child (the same node, the tool's bin, run from the side's folder): `measure` of
 * the app, or `run` of the generated cells at the side's version (its versions folder in COLDSTART_VERSIONS_DIR).
 */
async function countSide(side: string, runDir: string, options: GateOptions, count: SideCount): Promise<void> {
  const what = count.framework
    ? frameworkRunArgs(options.framework!, count.framework.value)
    : [
        'measure',
        ...count.relEntries.flatMap((entry) => ['--entry', path.join(side, entry)]),
        ...count.relHandlers.flatMap((handler) => ['--handler', path.join(side, handler)]),
        ...(options.names ? ['--name', options.names] : []),
        '--measure',
        'instructions',
        '--samples',
        '1',
      ];
  // V8's major GC in one pause: incremental marking's clock-driven steps made counts of one commit move (ATOMIC_GC_FLAGS)
  const counting = ['--atomic-gc', ...(options.cacheSim ? ['--cache-sim'] : [])];
  const args = [path.join(PROJECT_ROOT, 'bin', 'coldstart.js'), ...what, ...counting, ...options.measureArgs, '--out', runDir];
  const env = count.framework ? { ...options.env, COLDSTART_VERSIONS_DIR: count.framework.root } : options.env;
  const name = `the count of ${sideName(side)}`;
  const result = await runChild(options.nodePath, args, side, name, GATE_DEADLINES_MS.count, env);
  if (result.code === 2) throw new UsageError(lastLine(result.stderr) || 'measure exited 2');
  // the app could not be counted (its sample failed): the sample's own reason, not a bug of the gate
  if (result.code === EXIT_FAILED_SAMPLES) throw new ExitCodeError(`${name} failed: ${failedReason(runDir)}`, EXIT_FAILED_SAMPLES);
  if (result.code !== 0) throw new Error(`measure of ${path.basename(side)} exited ${result.code}: ${lastLine(result.stderr)}`);
}

/** The first failed sample's reason in a round's run folder (one line), for the gate's one-line error. */
function failedReason(runDir: string): string {
  try {
    const failed = readSamples(path.join(runDir, 'samples.jsonl')).find((sample) => !sample.ok);
    return `${oneLine(failed?.error ?? 'a sample failed').slice(0, 300)} (${path.basename(runDir)}/summary.md)`;
  } catch {
    return `a sample failed (${path.basename(runDir)}/summary.md)`;
  }
}

type Phases = Partial<Record<GatePhase, number>>;
/** One side's round: per cell, its phases in instructions and, under --cache-sim, in estimated cycles. */
type RoundCounts = Map<string, { instructions: Phases; cycles?: Phases }>;

/** A counted cell's name in the gate: an app's name, or a generated cell's framework and routes (its version aside). */
function gateCellName(cell: Cell): string {
  if (cell.source === APP_SOURCE) return cell.framework;
  return `${cell.framework} ${cell.routes}${cell.target === storedValue('target') ? '' : ` ${cell.target}`}`;
}

/** Counts per cell and phase of one side's round. */
function readRound(runDir: string): RoundCounts {
  const counts: RoundCounts = new Map();
  for (const sample of readSamples(path.join(runDir, 'samples.jsonl'))) {
    const phases = sample.ok && sample.instructions ? phasesOf(sample.instructions) : undefined;
    if (!phases) throw new Error(`a counted sample failed in ${path.basename(runDir)}: ${sample.error ?? 'no counts'}`);
    const cycles = sample.cycles ? phasesOf(sample.cycles) : undefined;
    counts.set(gateCellName(sample.cell), { instructions: phases, ...(cycles ? { cycles } : {}) });
  }
  return counts;
}

function relativeEntry(repoTop: string, cwd: string, entry: string): string {
  const [file, ...rest] = entry.split(' ');
  const rel = path.relative(repoTop, path.resolve(cwd, file!));
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new UsageError(`--entry ${file} is outside the repository`);
  return [rel, ...rest].join(' ');
}

export interface GateResult {
  readonly report: GateReport;
  readonly markdown: string;
  readonly exitCode: number;
}

/**
 * A file named by the CI ($GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT): appended to as it is (a regular file, or a
 * pipe with a reader), never waited on: a pipe with no reader, a folder or a device is one line, exit 2.
 */
function appendCiFile(variable: string, file: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const why = code === 'ENXIO' ? 'a pipe that nothing reads' : code === 'EISDIR' ? 'a folder' : code;
    throw new UsageError(`$${variable} (${file}) cannot be appended to: ${why}`);
  }
  try {
    writeAll(fd, Buffer.from(text, 'utf8'));
  } finally {
    closeSync(fd);
  }
}

/** A CI file checked before anything is counted: absent, a regular file or a pipe; never a folder or a device. */
function checkCiFile(variable: string, file: string | undefined): void {
  if (!file) return;
  let stat: Stats;
  try {
    stat = lstatSync(file);
  } catch {
    return; // made by the append
  }
  if (stat.isSymbolicLink()) return; // the CI's own choice: appended to where it leads, checked then
  if (!stat.isFile() && !stat.isFIFO()) throw new UsageError(`$${variable} (${file}) is not a file the gate can append to`);
}

/** A round's run folder inside --out: no link on its way, and an old one removed only if it is a run folder. */
function roundDir(out: string, name: string): string {
  const dir = ownedPath(out, name);
  if (existsSync(dir)) {
    checkOwnFolder(dir, RUN_FOLDER, `--out ${out}: ${name}`);
    rmSync(dir, { recursive: true, force: true });
  }
  return dir;
}

/** What the gate checks before it exports anything: the refs, the entries, --out and the CI's files. */
async function preflight(options: GateOptions) {
  if (options.base.startsWith('-')) throw new UsageError(`--base ${options.base}: a commit, branch or tag, not an option`);
  if (!findCountTools()) throw new UsageError('gate: valgrind (and vgdb) not on PATH: apt-get install valgrind');
  checkCiFile('GITHUB_STEP_SUMMARY', options.stepSummary);
  checkCiFile('GITHUB_OUTPUT', options.githubOutput);
  const repoTop = git(options.cwd, ['rev-parse', '--show-toplevel']);
  const resolved = spawnSync('git', ['-C', repoTop, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${options.base}^{commit}`], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (resolved.status !== 0) throw new UsageError(`--base ${options.base}: not a commit, branch or tag of this repository`);
  const baseCommit = resolved.stdout.trim();
  const headCommit = git(repoTop, ['rev-parse', '--verify', 'HEAD^{commit}']);
  const relEntries = options.entries.map((entry) => relativeEntry(repoTop, options.cwd, entry));
  const relHandlers = options.handlers.map((handler) => relativeEntry(repoTop, options.cwd, handler));
  const pkg = options.framework ? await checkFrameworkFrom(options.framework, repoTop, options.cwd) : undefined;
  // --out is new, empty or a gate folder (its gate.json); nothing in it is written through a link
  makeWritableDir(options.out, '--out', GATE_FOLDER);
  for (const own of [GATE_FILE, 'gate.md']) ownedPath(options.out, own);
  writeOwnedFile(options.out, GATE_FILE, `${JSON.stringify({ gate: 'running', baseCommit, headCommit }, null, 2)}\n`);
  return { repoTop, baseCommit, headCommit, relEntries, relHandlers, pkg };
}

/** A side made ready to count: its own lockfile installed (an app), or the package at its commit installed (--framework-from). */
async function prepareSide(side: string, root: string, pkg: FrameworkPackage | undefined, options: GateOptions) {
  if (!pkg) {
    await installSide(side, options.log);
    return undefined;
  }
  return { root, value: await installFrameworkSide(side, pkg, root, runChild, GATE_DEADLINES_MS, options.log) };
}

/** The report's record of --framework-from: the package, its folder, each side's version. */
function frameworkOf(pkg: FrameworkPackage | undefined, count: Record<'base' | 'head', SideCount>): Pick<GateReport, 'framework'> {
  const [base, head] = [count.base.framework, count.head.framework];
  return pkg && base && head ? { framework: { package: pkg.name, from: pkg.rel || '.', base: base.value, head: head.value } } : {};
}

/** Every cell and phase the base's first round counted, judged over all rounds of both sides. */
function judgeRounds(counts: Record<'base' | 'head', RoundCounts[]>, threshold: number): GateReport['cells'] {
  const cells: GateCell[] = [];
  const of = (rounds: RoundCounts[], app: string, phase: GatePhase, count: 'instructions' | 'cycles') =>
    rounds.map((r) => r.get(app)?.[count]?.[phase] ?? Number.NaN);
  for (const [app, first] of counts.base[0]!)
    for (const phase of GATE_PHASES.filter((p) => first.instructions[p] !== undefined))
      cells.push({
        app,
        phase,
        base: of(counts.base, app, phase, 'instructions'),
        head: of(counts.head, app, phase, 'instructions'),
        ...(first.cycles ? { cycles: { base: of(counts.base, app, phase, 'cycles'), head: of(counts.head, app, phase, 'cycles') } } : {}),
      });
  const totals = new Map(cells.filter((c) => c.phase === 'total').map((c) => [c.app, median(c.base)]));
  return cells.map((cell) => judge(cell, threshold, totals.get(cell.app)));
}

/** `--attribute`'s round: each side counted once more under `measure --count-packages`, and what it says per package. */
async function attributedRound(
  sides: { base: string; head: string },
  options: GateOptions,
  count: Record<'base' | 'head', SideCount>,
  cells: GateReport['cells'],
): Promise<GateAttribution> {
  options.log('gate: --attribute: counting base and head once more, cut at each package a require enters');
  const dirs = { base: roundDir(options.out, 'base-attribute'), head: roundDir(options.out, 'head-attribute') };
  // instructions only: the cache simulation would slow the round and say nothing of who grew
  const cut = { ...options, cacheSim: false, measureArgs: [...options.measureArgs, COUNT_PACKAGES_OPTION] };
  const totals = cells.filter((c) => c.phase === 'total').map((c) => ({ app: c.app, totalBase: c.baseMedian, threshold: c.threshold }));
  try {
    // both sides end before the gate goes on (one that failed does not leave the other running)
    const counted = await Promise.allSettled([
      countSide(sides.base, dirs.base, cut, count.base),
      countSide(sides.head, dirs.head, cut, count.head),
    ]);
    const failed = counted.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return packageAttribution(readPackageRound(dirs.base, gateCellName), readPackageRound(dirs.head, gateCellName), totals);
  } catch (error) {
    // the verdict stands without it: gate.md says why there is no per-package table
    if (options.abort?.aborted) throw error;
    options.log(`gate: --attribute: ${(error as Error).message}`);
    return failedAttribution((error as Error).message);
  }
}

export async function runGate(options: GateOptions): Promise<GateResult> {
  const { repoTop, baseCommit, headCommit, relEntries, relHandlers, pkg } = await preflight(options);
  const workRoot = options.work ?? os.tmpdir();
  const scratch = mkdtempSync(path.join(workRoot, 'coldstart-gate-'));
  const sides = { base: path.join(scratch, 'a'), head: path.join(scratch, 'b') };
  // an abort (the CLI's Ctrl-C or SIGTERM) stops every child; the run then fails and its finally removes the scratch folder
  const stop = () => {
    for (const child of live) child.kill('SIGTERM');
    setTimeout(() => live.forEach((child) => child.kill('SIGKILL')), 5000).unref();
  };
  options.abort?.addEventListener('abort', stop);
  const counts = { base: [] as RoundCounts[], head: [] as RoundCounts[] };
  let count: Record<'base' | 'head', SideCount> | undefined;
  let round = 0;
  const countRound = async () => {
    round++;
    // interleaved: base then head, started together (a count does not depend on the machine's load)
    const dirs = { base: roundDir(options.out, `base-${round}`), head: roundDir(options.out, `head-${round}`) };
    options.log(`gate: round ${round}: counting base and head`);
    await Promise.all([countSide(sides.base, dirs.base, options, count!.base), countSide(sides.head, dirs.head, options, count!.head)]);
    counts.base.push(readRound(dirs.base));
    counts.head.push(readRound(dirs.head));
  };
  const judgeAll = () => judgeRounds(counts, options.threshold);
  try {
    options.log(`gate: exporting base ${baseCommit.slice(0, 12)} and head ${headCommit.slice(0, 12)}`);
    await exportSide(repoTop, baseCommit, sides.base);
    await exportSide(repoTop, headCommit, sides.head);
    const app = { relEntries, relHandlers };
    count = {
      base: { ...app, framework: await prepareSide(sides.base, path.join(scratch, 'va'), pkg, options) },
      head: { ...app, framework: await prepareSide(sides.head, path.join(scratch, 'vb'), pkg, options) },
    };
    for (let i = 0; i < options.rounds; i++) await countRound();
    let cells = judgeAll();
    let confirmed = false;
    if (cells.some((cell) => cell.regressed)) {
      options.log('gate: a suspected regression: counting both sides once more');
      await countRound();
      cells = judgeAll();
      confirmed = true;
    }
    // --attribute: one more round of each side under measure --count-packages, after the verdict's own
    const packages = options.attribute ? await attributedRound(sides, options, count, cells) : undefined;
    const report: GateReport = {
      baseRef: options.base,
      baseCommit,
      headCommit,
      cells,
      rounds: round,
      confirmed,
      thresholdOption: options.threshold,
      ...frameworkOf(pkg, count),
    };
    const markdown = withPackages(gateMarkdown(report), packages, regressionsOf(report).length > 0);
    writeOwnedFile(options.out, 'gate.md', markdown);
    writeOwnedFile(options.out, GATE_FILE, JSON.stringify(packages ? { ...report, packages } : report, null, 2) + '\n');
    if (options.stepSummary) appendCiFile('GITHUB_STEP_SUMMARY', options.stepSummary, markdown);
    if (options.githubOutput) appendCiFile('GITHUB_OUTPUT', options.githubOutput, gateOutputs(report) + packageOutputs(packages));
    return { report, markdown, exitCode: regressionsOf(report).length ? 1 : 0 };
  } catch (error) {
    if (options.abort?.aborted) throw new GateAborted(String(options.abort.reason));
    throw error;
  } finally {
    options.abort?.removeEventListener('abort', stop);
    rmSync(scratch, { recursive: true, force: true });
  }
}
