/**
 * `coldstart gate`: base against head of the repository it is run in. Both commits are exported with
 * `git archive` into one scratch folder, as `<scratch>/a` (base) and `<scratch>/b` (head): paths that differ
 * in one same-length component, so resolving them costs the same instructions. Each side is installed from
 * its own lockfile (`npm ci`, its node_modules cached by the lockfile's hash under WORK_ROOT/.cache/gate-npm),
 * then counted by `measure --measure instructions` (one counted sample a round), rounds interleaved: base,
 * head, base, head. The user's working folder is only read by git. The verdict is pipeline/gate-verdict.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { PROJECT_ROOT, WORK_ROOT } from '../core/paths.ts';
import { findCountTools } from '../measure/counting.ts';
import { readSamples } from '../store/samples-file.ts';
import { GATE_PHASES, gateMarkdown, gateOutputs, judge, phasesOf, regressionsOf, type GateCell, type GateReport } from './gate-verdict.ts';

const GATE_NPM_CACHE = path.join(WORK_ROOT, '.cache', 'gate-npm');

export interface GateOptions {
  readonly base: string;
  /** entries as `measure --entry` takes them, paths relative to the folder the gate is run from */
  readonly entries: readonly string[];
  readonly handlers: readonly string[];
  readonly names?: string;
  readonly rounds: number;
  readonly threshold: number;
  readonly out: string;
  /** where the scratch folder is made (default: the OS's temp folder) */
  readonly work?: string;
  /** extra `measure` options, passed as given (--request, --expect-status …) */
  readonly measureArgs: readonly string[];
  readonly log: (line: string) => void;
  /** the folder the gate is run from (inside the repository), node to run measure with, the CI's files */
  readonly cwd: string;
  readonly nodePath: string;
  readonly stepSummary?: string;
  readonly githubOutput?: string;
}

function git(repo: string, args: string[]): string {
  const result = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new UsageError(`git ${args[0]}: ${(result.stderr || 'failed').trim().split('\n')[0]}`);
  return result.stdout.trim();
}

function exportSide(repo: string, commit: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const tar = spawnSync('git', ['-C', repo, 'archive', '--format=tar', commit], { maxBuffer: 2 ** 31 });
  if (tar.status !== 0) throw new UsageError(`git archive ${commit}: ${tar.stderr.toString().trim().split('\n')[0]}`);
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: tar.stdout });
  if (untar.status !== 0) throw new Error(`tar -x: ${untar.stderr.toString().trim()}`);
}

/** `npm ci` in the side, unless the cache holds node_modules for the same lockfile (then copied in). */
function installSide(dir: string, log: (line: string) => void): void {
  const lock = path.join(dir, 'package-lock.json');
  if (!existsSync(lock)) return;
  const hash = createHash('sha256').update(readFileSync(lock)).digest('hex').slice(0, 16);
  const cached = path.join(GATE_NPM_CACHE, hash, 'node_modules');
  if (existsSync(cached)) {
    log(`gate: node_modules from the cache (lockfile ${hash})`);
    cpSync(cached, path.join(dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    return;
  }
  log(`gate: npm ci (lockfile ${hash})`);
  const ci = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
  if (ci.status !== 0) throw new UsageError(`npm ci failed in the exported side: ${(ci.stderr || '').trim().split('\n').at(-1) ?? ''}`);
  // a lockfile without dependencies installs no node_modules: nothing to cache
  if (!existsSync(path.join(dir, 'node_modules'))) return;
  const staging = `${cached}.${randomBytes(6).toString('hex')}`;
  cpSync(path.join(dir, 'node_modules'), staging, { recursive: true, verbatimSymlinks: true });
  rmSync(cached, { recursive: true, force: true });
  spawnSync('mv', [staging, cached]);
}

/** One counted round of one side: `measure` in a child (the same node, the tool's bin, run from the side's folder). */
function countSide(side: string, runDir: string, options: GateOptions, relEntries: string[], relHandlers: string[]): Promise<void> {
  const args = [
    path.join(PROJECT_ROOT, 'bin', 'coldstart.js'),
    'measure',
    ...relEntries.flatMap((entry) => ['--entry', path.join(side, entry)]),
    ...relHandlers.flatMap((handler) => ['--handler', path.join(side, handler)]),
    ...(options.names ? ['--name', options.names] : []),
    '--measure',
    'instructions',
    '--samples',
    '1',
    ...options.measureArgs,
    '--out',
    runDir,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(options.nodePath, args, { cwd: side, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else if (code === 2) reject(new UsageError(stderr.trim().split('\n').at(-1) ?? `measure exited ${code}`));
      else reject(new Error(`measure of ${path.basename(side)} exited ${code}: ${stderr.trim().split('\n').at(-1) ?? ''}`));
    });
  });
}

/** Counts per app and phase of one side's round. */
function readRound(runDir: string): Map<string, Record<string, number>> {
  const counts = new Map<string, Record<string, number>>();
  for (const sample of readSamples(path.join(runDir, 'samples.jsonl'))) {
    const phases = sample.ok && sample.instructions ? phasesOf(sample.instructions) : undefined;
    if (!phases) throw new Error(`a counted sample failed in ${path.basename(runDir)}: ${sample.error ?? 'no counts'}`);
    counts.set(sample.cell.framework, phases);
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

export async function runGate(options: GateOptions): Promise<GateResult> {
  if (!findCountTools()) throw new UsageError('gate: valgrind (and vgdb) not on PATH: apt-get install valgrind');
  const repoTop = git(options.cwd, ['rev-parse', '--show-toplevel']);
  const resolved = spawnSync('git', ['-C', repoTop, 'rev-parse', '--verify', '--quiet', `${options.base}^{commit}`], { encoding: 'utf8' });
  if (resolved.status !== 0) throw new UsageError(`--base ${options.base}: not a commit, branch or tag of this repository`);
  const baseCommit = resolved.stdout.trim();
  const headCommit = git(repoTop, ['rev-parse', '--verify', 'HEAD^{commit}']);
  const relEntries = options.entries.map((entry) => relativeEntry(repoTop, options.cwd, entry));
  const relHandlers = options.handlers.map((handler) => relativeEntry(repoTop, options.cwd, handler));
  const workRoot = options.work ?? os.tmpdir();
  const scratch = mkdtempSync(path.join(workRoot, 'coldstart-gate-'));
  const sides = { base: path.join(scratch, 'a'), head: path.join(scratch, 'b') };
  mkdirSync(options.out, { recursive: true });
  const counts = { base: [] as Map<string, Record<string, number>>[], head: [] as Map<string, Record<string, number>>[] };
  let round = 0;
  const countRound = async () => {
    round++;
    // interleaved: base then head, started together (a count does not depend on the machine's load)
    const dirs = { base: path.join(options.out, `base-${round}`), head: path.join(options.out, `head-${round}`) };
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
    options.log(`gate: round ${round}: counting base and head`);
    await Promise.all([
      countSide(sides.base, dirs.base, options, relEntries, relHandlers),
      countSide(sides.head, dirs.head, options, relEntries, relHandlers),
    ]);
    counts.base.push(readRound(dirs.base));
    counts.head.push(readRound(dirs.head));
  };
  const judgeAll = (): GateReport['cells'] => {
    const cells: GateCell[] = [];
    for (const app of counts.base[0]!.keys())
      for (const phase of GATE_PHASES)
        cells.push({
          app,
          phase,
          base: counts.base.map((r) => r.get(app)![phase]!),
          head: counts.head.map((r) => r.get(app)?.[phase] ?? Number.NaN),
        });
    return cells.map((cell) => judge(cell, options.threshold));
  };
  try {
    options.log(`gate: exporting base ${baseCommit.slice(0, 12)} and head ${headCommit.slice(0, 12)}`);
    exportSide(repoTop, baseCommit, sides.base);
    exportSide(repoTop, headCommit, sides.head);
    installSide(sides.base, options.log);
    installSide(sides.head, options.log);
    for (let i = 0; i < options.rounds; i++) await countRound();
    let cells = judgeAll();
    let confirmed = false;
    if (cells.some((cell) => cell.regressed)) {
      options.log('gate: a suspected regression: counting both sides once more');
      await countRound();
      cells = judgeAll();
      confirmed = true;
    }
    const report: GateReport = {
      baseRef: options.base,
      baseCommit,
      headCommit,
      cells,
      rounds: round,
      confirmed,
      thresholdOption: options.threshold,
    };
    const markdown = gateMarkdown(report);
    writeFileSync(path.join(options.out, 'gate.md'), markdown);
    writeFileSync(path.join(options.out, 'gate.json'), JSON.stringify(report, null, 2) + '\n');
    if (options.stepSummary) appendFileSync(options.stepSummary, markdown);
    if (options.githubOutput) appendFileSync(options.githubOutput, gateOutputs(report));
    return { report, markdown, exitCode: regressionsOf(report).length ? 1 : 0 };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
