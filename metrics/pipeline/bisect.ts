/**
 * `bisect`: the first release of a package whose cold start passes a threshold over the good end, by
 * binary search (analyse/bisect.ts) over the registry's releases between two versions (or a folder of
 * `npm pack` tarballs), on a generated cell (framework × routes × target, the package at each version
 * through `--versions`) or on the user's server entry (copied once per version into the bisect's
 * folder and the version installed there; the app's own folder and lockfile are left alone). Each step
 * is a run of its own under steps/<version>/; the state (bisect.json) is written after every step, so
 * an interrupted bisect continues where it stopped. A version that does not install, or whose cell
 * does not answer right, is skipped (as `git bisect skip`) and said.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { bisectNext, isBad, loadChanges, type BisectNext, type BisectResult, type LoadChange } from '../analyse/bisect.ts';
import type { AppSpec } from '../core/app.ts';
import { ExitCodeError, UsageError } from '../core/errors.ts';
import { markdownCode, markdownText, oneLine } from '../core/escape.ts';
import { checkState } from '../core/state-schema.ts';
import { OWNER, type PackageLoad } from '../core/packages.ts';
import type { Measure, Target } from '../core/dimensions.ts';
import { ownedPath, writeOwnedFile } from '../store/files.ts';
import { readTextBounded } from '../store/input-files.ts';
import { makeWritableDir, type FolderKind } from '../store/out-dir.ts';
import { lockFolder } from '../measure/run-lock.ts';
import { bisectStateSchema } from './bisect-state.ts';
import { measureKind } from '../core/kinds.ts';

/** More candidates than this ask for --yes or a coarser --step. */
export const MAX_CANDIDATES = 32;
export const STATE_FILE = 'bisect.json';
const STATE_VERSION = 1;

/** What a bisect measures at each version. */
export type BisectCell = { kind: 'generated'; framework: string; routes: number; target: Target } | { kind: 'app'; app: AppSpec };

export interface BisectOptions {
  pkg: string;
  good: string;
  bad: string;
  pre: boolean;
  step: number;
  yes: boolean;
  /** share over the good end: 0.01 = 1 % */
  threshold: number;
  measure: Measure;
  cell: BisectCell;
  /** a folder of `npm pack` tarballs to take the versions from instead of the registry */
  from: string | undefined;
  /** `--git good..bad`: the candidates are the commits of this repository (the app's), not releases of `pkg` */
  git?: string;
  /** the bisect's folder: its state, its steps' run folders, the apps' copies */
  dir: string;
  command: string;
}

interface BisectState {
  version: typeof STATE_VERSION;
  /** what the bisect is: a resumed one must be the same */
  identity: Record<string, unknown>;
  candidates: string[];
  results: Record<string, BisectResult>;
  /** the order the candidates were measured in */
  steps: string[];
}

export interface BisectDeps {
  /** the candidates from the good end to the bad end, in order, or undefined when an end is not one */
  candidates(o: BisectOptions): string[] | undefined;
  /** one candidate measured into `stepDir`, or interrupted (with the exit code the signal gives) */
  measure(candidate: string, stepDir: string): Promise<BisectResult | { kind: 'interrupted'; exitCode: number }>;
  /** whether a measured step's run folder says its run was interrupted (its meta.json) */
  interrupted?(stepDir: string): boolean;
  /** each package's share of the busy profile of a measured step (its --attribute run), when it has one */
  shares?(stepDir: string): Record<string, number> | undefined;
  /** each package's loaded code (modules, bytes on disk) at a measured step, or why there is none */
  loaded?(candidate: string, stepDir: string): Promise<StepLoad | string>;
  log(line: string): void;
}

export interface BisectOutcome {
  verdict: BisectNext;
  candidates: string[];
  results: Record<string, BisectResult>;
  /** measurements made by this invocation (a resumed bisect made fewer) */
  measuredNow: number;
  report: string;
  /** the packages whose loaded code changed most between the two releases compared (the last good and the culprit, or the ends) */
  packages?: PackagesMoved;
}

/** The per-package table's data: which two releases, and the packages that changed most (or why there is no table). */
export type PackagesMoved =
  | {
      from: string;
      to: string;
      total: { before: PackageTotal; after: PackageTotal };
      changes: LoadChange[];
      /** Node's own modules loaded at one release and not the other */
      node: { added: string[]; removed: string[] };
    }
  | { from: string; to: string; missing: string };

/** What a step's start loaded: per package (Node's own modules as `(node)`), and Node's modules by name. */
export interface StepLoad {
  packages: PackageLoad[];
  node: string[];
}
type PackageTotal = { modules: number; bytes: number };

const identityOf = (o: BisectOptions) => ({
  package: o.pkg,
  good: o.good,
  bad: o.bad,
  pre: o.pre,
  step: o.step,
  threshold: o.threshold,
  measure: o.measure,
  cell: o.cell.kind === 'generated' ? o.cell : { kind: 'app', file: o.cell.app.file },
  from: o.from ?? null,
  git: o.git ?? null,
});

/** How a candidate is named in lines and reports: `fastify@4.28.1`, or `commit 1a2b3c4d5e6f`. */
export const named = (o: Pick<BisectOptions, 'pkg' | 'git'>, candidate: string) =>
  o.git ? `commit ${candidate}` : `${o.pkg}@${candidate}`;

/** The largest bisect.json read: a step's result is a few hundred bytes. */
const MAX_STATE_BYTES = 16 * 2 ** 20;

function readState(file: string): BisectState | undefined {
  if (!existsSync(file)) return undefined;
  // bounded and of its kind before it is read (a FIFO refused, not waited on; /dev/zero not read until memory runs out)
  const text = readTextBounded(file, MAX_STATE_BYTES, "a bisect's state");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not valid JSON: repair or remove it (the bisect then starts again)`);
  }
  // every value checked before the search reads one (a string, 1e308, a candidate with escape bytes: one line, exit 2)
  return checkState(bisectStateSchema, value, file);
}

// bisect.json, bisect.md, steps/ and what is in it are the bisect folder's own: never written through a link (store/files.ts)
const writeState = (file: string, state: BisectState) =>
  writeOwnedFile(path.dirname(file), path.basename(file), `${JSON.stringify(state, null, 2)}\n`);

/** A bisect folder, as an --out that exists: its bisect.json marks it as the tool's own. */
const BISECT_FOLDER: FolderKind = { what: 'a bisect folder', markers: [STATE_FILE] };

/**
 * The bisect, its folder held for this process from start to end (measure/run-lock.ts): a second bisect into the same
 * folder is one line, exit 2, while this one is alive.
 */
export async function runBisect(options: BisectOptions, deps: BisectDeps): Promise<BisectOutcome> {
  // the one check of an output folder, before the lock is made in it: a file, a FIFO or /dev/null is exit 2, /proc is
  // refused before a mkdir loops there, and a folder that is neither new, empty nor a bisect's is refused
  makeWritableDir(options.dir, '--out', BISECT_FOLDER);
  const lock = lockFolder(options.dir, 'bisect', (line) => deps.log(line));
  try {
    return await bisectHeld(options, deps);
  } finally {
    lock.release();
  }
}

/** The bisect: resumed from its folder's state when there is one (the same bisect), else started; each step saved as it ends. */
async function bisectHeld(options: BisectOptions, deps: BisectDeps): Promise<BisectOutcome> {
  // a link where the bisect writes (its state, its report, steps/) is refused before any step runs
  for (const own of [STATE_FILE, 'bisect.md', 'steps']) ownedPath(options.dir, own);
  const stateFile = path.join(options.dir, STATE_FILE);
  const identity = identityOf(options);
  let state = readState(stateFile);
  if (state && JSON.stringify(state.identity) !== JSON.stringify(identity))
    throw new UsageError(`${options.dir} holds another bisect (${STATE_FILE}): give another --out`);
  if (state) {
    // a step whose run was interrupted is no result (measured, or skipped for want of samples),
    // even when an older bisect recorded one: measured again
    const unfinished = state.steps.filter((v) => deps.interrupted?.(stepDirOf(options, v)));
    if (unfinished.length) {
      const results = Object.fromEntries(Object.entries(state.results).filter(([v]) => !unfinished.includes(v)));
      state = { ...state, results, steps: state.steps.filter((v) => !unfinished.includes(v)) };
      deps.log(`${unfinished.map((v) => named(options, v)).join(', ')}: the step's run was interrupted: measured again`);
    }
    deps.log(`resuming: ${Object.keys(state.results).length} of ${state.candidates.length} versions already measured`);
  } else {
    const candidates = deps.candidates(options);
    if (!candidates) {
      const ends = options.git
        ? `--git ${options.good}..${options.bad}: both must be commits, the good one an ancestor of the bad one`
        : `--range ${options.good}..${options.bad}: both must be published versions of ${options.pkg}, the good one first`;
      throw new UsageError(ends);
    }
    if (candidates.length > MAX_CANDIDATES && !options.yes)
      throw new UsageError(
        `--range ${options.good}..${options.bad} holds ${candidates.length} versions (more than ${MAX_CANDIDATES}): ` +
          `give --yes, or --step N to try every N-th`,
      );
    state = { version: STATE_VERSION, identity, candidates, results: {}, steps: [] };
    writeState(stateFile, state);
    deps.log(
      `${candidates.length} ${options.git ? 'commits' : `versions of ${options.pkg}`} from ${options.good} to ${options.bad}: ` +
        `about ${stepsFor(candidates.length)} runs`,
    );
  }
  let measuredNow = 0;
  for (;;) {
    const next = bisectNext({ candidates: state.candidates, results: state.results, threshold: options.threshold });
    if (next.kind !== 'measure') {
      const shares =
        next.kind === 'found' && deps.shares
          ? { before: deps.shares(stepDirOf(options, next.lastGood)), after: deps.shares(stepDirOf(options, next.culprit)) }
          : undefined;
      const packages = await packagesMoved(options, state, next, deps);
      const report = bisectReport(options, state, next, shares, packages);
      writeOwnedFile(options.dir, 'bisect.md', report);
      return {
        verdict: next,
        candidates: state.candidates,
        results: state.results,
        measuredNow,
        report,
        ...(packages ? { packages } : {}),
      };
    }
    const candidate = next.candidate;
    const result = await deps.measure(candidate, stepDirOf(options, candidate));
    // an interrupted step is no result: not logged as good or bad, not saved; the same command measures it again
    if (result.kind === 'interrupted')
      throw new ExitCodeError(
        `interrupted during ${named(options, candidate)}: not a result; the same command resumes and measures it again`,
        result.exitCode,
      );
    measuredNow++;
    state = { ...state, results: { ...state.results, [candidate]: result }, steps: [...state.steps, candidate] };
    writeState(stateFile, state);
    deps.log(stepLine(options, state, candidate, result));
  }
}

const stepDirOf = (o: BisectOptions, candidate: string) => ownedPath(o.dir, path.join('steps', candidate));

/** The two releases a verdict compares (the last good and the culprit, or the two ends), with each one's loaded packages. */
async function packagesMoved(
  o: BisectOptions,
  state: BisectState,
  verdict: BisectNext,
  deps: BisectDeps,
): Promise<PackagesMoved | undefined> {
  if (!deps.loaded || (verdict.kind !== 'found' && verdict.kind !== 'no-change')) return undefined;
  const from = verdict.kind === 'found' ? verdict.lastGood : state.candidates[0]!;
  const to = verdict.kind === 'found' ? verdict.culprit : state.candidates[state.candidates.length - 1]!;
  const before = await deps.loaded(from, stepDirOf(o, from));
  const after = await deps.loaded(to, stepDirOf(o, to));
  if (typeof before === 'string') return { from, to, missing: `${named(o, from)}: ${before}` };
  if (typeof after === 'string') return { from, to, missing: `${named(o, to)}: ${after}` };
  const total = (list: PackageLoad[]) => ({
    modules: list.reduce((n, p) => n + p.modules, 0),
    bytes: list.reduce((n, p) => n + p.bytes, 0),
  });
  const node = {
    added: after.node.filter((m) => !before.node.includes(m)),
    removed: before.node.filter((m) => !after.node.includes(m)),
  };
  const changes = loadChanges(before.packages, after.packages);
  return { from, to, total: { before: total(before.packages), after: total(after.packages) }, changes, node };
}

/** The per-package table's lines (markdown; the console prints the same lines). */
export function packagesTable(moved: PackagesMoved): string[] {
  if ('missing' in moved) return [`No per-package table: ${moved.missing}.`];
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  const signed = (n: number, text: string) => `${n >= 0 ? '+' : ''}${text}`;
  const row = (name: string, a: PackageTotal, b: PackageTotal) => {
    // Node's own modules are not on disk: no bytes
    const bytes =
      name === OWNER.node
        ? ['–', '–', '–']
        : [
            kb(a.bytes),
            kb(b.bytes),
            signed(b.bytes - a.bytes, kb(b.bytes - a.bytes)) + (a.bytes ? ` (${relative(b.bytes, a.bytes)})` : ''),
          ];
    const modules = [String(a.modules), String(b.modules), signed(b.modules - a.modules, String(b.modules - a.modules))];
    // a package's name is a folder's under node_modules: text from outside
    return `| ${markdownText(name.replace(/\|/g, '/'))} | ${modules.join(' | ')} | ${bytes.join(' | ')} |`;
  };
  return [
    `| package | modules at ${moved.from} | at ${moved.to} | change | KB at ${moved.from} | at ${moved.to} | change, KB |`,
    '| :-- | --: | --: | --: | --: | --: | --: |',
    ...moved.changes.map((c) => row(c.name, c.before, c.after)),
    row('all loaded code', moved.total.before, moved.total.after),
    ...(moved.changes.length ? [] : ['', 'No package loaded other modules or bytes.']),
    ...(moved.node.added.length ? ['', `Node's own modules loaded at ${moved.to} only: ${moved.node.added.join(', ')}.`] : []),
    ...(moved.node.removed.length ? ['', `Node's own modules loaded at ${moved.from} only: ${moved.node.removed.join(', ')}.`] : []),
  ];
}

/** Two ends and log2 of what lies between. */
export function stepsFor(n: number): number {
  return 2 + Math.ceil(Math.log2(Math.max(1, n - 1)));
}

const unit = (m: Measure) => measureKind(m).unit;
const show = (m: Measure, v: number) => measureKind(m).show(v);

function stepLine(o: BisectOptions, state: BisectState, candidate: string, r: BisectResult): string {
  const n = state.steps.length;
  if (r.kind === 'skipped') return `step ${n}: ${named(o, candidate)} skipped (${oneLine(r.reason)})`;
  const good = state.results[state.candidates[0]!];
  const vs = good?.kind === 'measured' && candidate !== state.candidates[0] ? relative(r.value, good.value) : '';
  const verdict =
    good?.kind === 'measured' && candidate !== state.candidates[0] ? (isBad(r.value, good.value, o.threshold) ? ' bad' : ' good') : '';
  const against = vs ? ` (${vs} vs ${state.candidates[0]})` : '';
  return `step ${n}: ${named(o, candidate)} ${show(o.measure, r.value)} ${unit(o.measure)}${against}${verdict}`;
}

function relative(value: number, base: number): string {
  const p = ((value - base) / base) * 100;
  return `${p >= 0 ? '+' : ''}${p.toFixed(2)} %`;
}

/** bisect.md: the steps in the order taken, the verdict, and the change per phase between the last good and the culprit. */
type Shares = Record<string, number> | undefined;

/** The packages whose share of the profile moved most from `before` to `after` (percentage points), at most `top`. */
export function shareChanges(before: Shares, after: Shares, top = 5): { name: string; before: number; after: number }[] {
  if (!before || !after) return [];
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return names
    .map((name) => ({ name, before: before[name] ?? 0, after: after[name] ?? 0 }))
    .sort((a, b) => Math.abs(b.after - b.before) - Math.abs(a.after - a.before) || (a.name < b.name ? -1 : 1))
    .slice(0, top);
}

/** bisect.md's per-package section (when the verdict compares two releases) and the note on the step folders. */
function packagesSection(packages: PackagesMoved | undefined): string[] {
  const lines: string[] = [];
  if (packages)
    lines.push(
      '',
      `## Packages whose loaded code changed most, ${packages.from} → ${packages.to}`,
      '',
      'The modules each package loads until the server listens, and their bytes on disk: one more, unrecorded ' +
        "run of the step's server (not counted, not timed) that lists `require.cache` (CommonJS modules) and " +
        "Node's own modules once it listens. The same on every run: a deterministic companion to the counts.",
      '',
      ...packagesTable(packages),
    );
  lines.push(
    '',
    "Each step's folder keeps its samples, meta.json and summaries; `npm run report steps/<version>` " +
      'writes its report.html and charts again.',
  );
  return lines;
}

export function bisectReport(
  o: BisectOptions,
  state: BisectState,
  verdict: BisectNext,
  shares?: { before: Shares; after: Shares },
  packages?: PackagesMoved,
): string {
  const what =
    o.cell.kind === 'generated' ? `${o.cell.framework}, ${o.cell.routes} routes, ${o.cell.target}` : `the app ${o.cell.app.name}`;
  const good = state.results[state.candidates[0]!];
  const lines = [
    `# Bisect: ${o.git ? 'commits' : o.pkg} ${o.good}..${o.bad} on ${what}`,
    '',
    `- **Command:** ${markdownCode(o.command)}`,
    `- **Measured:** ${unit(o.measure)} to the first answer; ` +
      `a version is bad above the good end by more than ${(o.threshold * 100).toFixed(2)} %`,
    `- **Candidates:** ${state.candidates.length} (${state.candidates.join(', ')})`,
    `- **Runs:** ${state.steps.length}`,
    '',
    '| step | version | value | vs good end | verdict |',
    '| --: | :-- | --: | --: | :-- |',
    ...state.steps.map((v, i) => {
      const r = state.results[v]!;
      if (r.kind === 'skipped') return `| ${i + 1} | ${v} | – | – | skipped: ${markdownText(r.reason)} |`;
      const base = good?.kind === 'measured' ? good.value : r.value;
      const verdictText = v === state.candidates[0] ? 'good end' : isBad(r.value, base, o.threshold) ? 'bad' : 'good';
      return `| ${i + 1} | ${v} | ${show(o.measure, r.value)} | ${relative(r.value, base)} | ${verdictText} |`;
    }),
    '',
  ];
  if (verdict.kind === 'failed') lines.push(`**No verdict:** ${verdict.reason}.`);
  if (verdict.kind === 'no-change')
    lines.push(
      `**No regression:** the bad end is ${relative(verdict.bad, verdict.good)} vs the good end: not above it by more than the threshold.`,
    );
  if (verdict.kind === 'found') {
    lines.push(`**Culprit: ${named(o, verdict.culprit)}** (the last good one before it: ${verdict.lastGood}).`);
    if (verdict.between.length)
      lines.push('', `Skipped between them (any of them could be the culprit as well): ${verdict.between.join(', ')}.`);
    const a = state.results[verdict.lastGood];
    const b = state.results[verdict.culprit];
    if (a?.kind === 'measured' && b?.kind === 'measured') {
      lines.push(
        '',
        `## Change per phase, ${verdict.lastGood} → ${verdict.culprit}`,
        '',
        '| phase | before | after | change |',
        '| :-- | --: | --: | --: |',
      );
      for (const phase of Object.keys(b.phases)) {
        const x = a.phases[phase];
        const y = b.phases[phase]!;
        if (x === undefined) continue;
        lines.push(`| ${phase} | ${show(o.measure, x)} | ${show(o.measure, y)} | ${x === 0 ? '–' : relative(y, x)} |`);
      }
    }
    const moved = shareChanges(shares?.before, shares?.after);
    if (moved.length) {
      lines.push(
        '',
        '## Packages whose share changed most',
        '',
        "Each package's share of the busy CPU profile of one unrecorded, profiled run per step (`--attribute`).",
        '',
        '| package | before | after | change (points) |',
        '| :-- | --: | --: | --: |',
        ...moved.map((m) => {
          const points = (m.after - m.before) * 100;
          const cells = [(m.before * 100).toFixed(1), (m.after * 100).toFixed(1), `${points >= 0 ? '+' : ''}${points.toFixed(1)}`];
          return `| ${markdownText(m.name.replace(/\|/g, '/'))} | ${cells[0]} % | ${cells[1]} % | ${cells[2]} |`;
        }),
      );
    }
  }
  lines.push(...packagesSection(packages));
  return `${lines.join('\n')}\n`;
}

// ---- the real deps ----

/** A release as a bisect takes one: x.y.z, then a pre-release or build of letters, digits, `.`, `+`, `-` (at most 200 in all). */
