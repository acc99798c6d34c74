/**
 * The project's test commands on every core of the machine (`npm test`, `npm run test:all`,
 * `npm run test:unit`, `npm run test:smoke`). Node's runner alone runs os.availableParallelism() - 1
 * files at a time (one on a two-core machine); the layers that measure nothing run
 * os.availableParallelism() files at a time here, and the static checks (eslint; tsc; prettier;
 * dependency-cruiser and knip) run side by side, each one's output printed whole when it ends.
 * The e2e layer runs three files at a time (no test asserts a timing: files beside each other slow each other
 * down, never fail; one at a time 827 s, two 507 s at load 4 to 5 and 548 s, three 495 s, 868 tests, 0 failing, on
 * 2 cores); the fault sweep stays one file at a time (it kills and starves processes by design).
 *
 *   node --import tsx metrics/tools/test-run.ts STEP...   (steps: checks, unit, smoke, e2e, faults)
 *
 * Steps run in order and the first that fails ends the command with its exit code; each step's wall
 * time is printed on stderr (`test-run: unit 61 s`), never asserted. The command ends with one line of
 * totals on stdout, after the reporters' output (test-summary.ts): tests, pass, fail, skipped, each
 * step's time and the whole.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type StepEnd, summaryLine, tapTotals } from './test-summary.ts';
import { toolCommand, trackedFiles } from './tracked.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CORES = os.availableParallelism();

/** The test files of these folders (relative to the project), sorted. */
function testFiles(...folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(path.join(ROOT, folder))
      .filter((name) => name.endsWith('.test.ts'))
      .sort()
      .map((name) => path.join(folder, name)),
  );
}

/** Where each layer's second reporter writes the TAP whose totals the summary line adds up; removed at exit. */
const TAP_DIR = mkdtempSync(path.join(os.tmpdir(), 'coldstart-test-run-'));
const removeTapDir = (): void => rmSync(TAP_DIR, { recursive: true, force: true });
process.on('exit', removeTapDir);
/** The commands running now: a SIGTERM or Ctrl-C to test-run is passed on to them. */
const running = new Set<ChildProcess>();
// test-run ends by the signal as before, its children signalled and the folder removed first
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of running) child.kill(signal);
    removeTapDir();
    process.kill(process.pid, signal);
  });
}
const tapFile = (layer: string): string => path.join(TAP_DIR, `${layer}.tap`);

/**
 * Node's test runner over `files`, `concurrency` files at a time. Its output is the runner's default (spec on a
 * terminal, TAP otherwise), and a second TAP reporter writes `tapFile(layer)` for the totals.
 */
function nodeTest(layer: string, files: string[], concurrency: number, timeoutMs: number, imports: string[] = []): string[] {
  const flags = ['--import', 'tsx', ...imports.flatMap((i) => ['--import', i])];
  const reporters = [
    ...['--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout'],
    ...['--test-reporter', 'tap', '--test-reporter-destination', tapFile(layer)],
  ];
  return [process.execPath, ...flags, '--test', ...reporters, `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, ...files];
}

const npx = (...args: string[]): string[] => ['npx', '--no-install', ...args];

/** eslint or prettier on the files git tracks (tracked.ts): a run folder left in the checkout is not checked. */
const onTracked = (tool: 'eslint' | 'prettier', ...args: string[]): string[] => npx(...toolCommand(tool, args, trackedFiles(ROOT)));

/** The static checks, side by side: `npm run lint` (eslint, then dependency-cruiser and knip), the format check, tsc. */
const CHECKS: Record<string, string[][]> = {
  eslint: [onTracked('eslint')],
  'depcruise, knip': [npx('depcruise', 'generators', 'metrics', 'test'), npx('knip')],
  // prettier's cache (node_modules/.cache/prettier, by content: a checkout's new mtimes do not void it) skips the files it
  // found formatted before, unchanged since: 11.2 CPU-s cold, 2.0 s warm. eslint has no cache here: its type-aware rules
  // read other files, which its cache (keyed by the file's own content) would not see change.
  prettier: [onTracked('prettier', '--check', '--log-level', 'warn', '--cache', '--cache-strategy', 'content')],
  tsc: [npx('tsc', '--noEmit')],
};

/**
 * The in-process files that need a process of their own: they assert on state a process keeps from one file to the
 * next (the heap's large-object space, scratch folders named by the pid, the project's folders and locks). The
 * others share a process, a few files each (sharedEntries): node's start, tsx and the same modules of metrics/
 * loaded once per process instead of once per file (docs/dev/testing.md, "The cost of npm test").
 */
const OWN_PROCESS = new Set(
  [
    'unit/report-memory',
    'unit/run-bounds',
    'unit/app-versions',
    'unit/clean-in-use',
    'unit/compare-cli',
    'unit/cli-usage',
    'unit/lambda-import-cli',
    'unit/shared-folder-locks',
    'pipeline/owned-folders',
    'pipeline/publish',
    'pipeline/verify',
    'pipeline/verify-installed',
    'pipeline/meta-version',
    'pipeline/counted-wording',
    'pipeline/faults',
  ].map((name) => path.join('test', `${name}.test.ts`)),
);

/** How many processes share the in-process files: fixed, so the same files share a process on every machine. */
const SHARED_GROUPS = 4;

/**
 * The in-process layer's files as `node --test` takes them: those of OWN_PROCESS as they are, the others in `groups`
 * entry modules (round robin over the sorted files), each importing its files one after the other, written into
 * TAP_DIR. A failure's location still names its file.
 */
function sharedEntries(files: string[], groups: number): string[] {
  const shared = files.filter((f) => !OWN_PROCESS.has(f));
  const entries = Array.from({ length: groups }, (_, i) => shared.filter((_, j) => j % groups === i)).map((group, i) => {
    const entry = path.join(TAP_DIR, `shared-${i + 1}.test.mjs`);
    writeFileSync(entry, group.map((f) => `await import(${JSON.stringify(pathToFileURL(path.join(ROOT, f)).href)});\n`).join(''));
    return entry;
  });
  return [...entries, ...files.filter((f) => OWN_PROCESS.has(f))];
}

/** Each test step's command: the in-process layers and the smoke layer on every core, e2e and the sweep one file at a time. */
const LAYERS: Record<string, () => string[]> = {
  unit: () =>
    nodeTest('unit', sharedEntries(testFiles('test/unit', 'test/pipeline'), SHARED_GROUPS), CORES, 300_000, ['./test/support/no-spawn.ts']),
  smoke: () => nodeTest('smoke', testFiles('test/smoke'), CORES, 600_000),
  e2e: () => nodeTest('e2e', testFiles('test/e2e'), 3, 900_000),
  faults: () => nodeTest('faults', testFiles('test/faults'), 1, 1_800_000),
};

interface Ended {
  code: number;
  output: string;
}

/** Run `command`; with `capture`, its stdout and stderr are kept and returned instead of printed. */
function run(command: string[], capture: boolean): Promise<Ended> {
  const [file, ...args] = command;
  const child = spawn(file!, args, { cwd: ROOT, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  running.add(child);
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 127, output: `${file}: ${error.message}\n` }));
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code: code ?? (signal === 'SIGINT' ? 130 : 1), output: Buffer.concat(chunks).toString() });
    });
  });
}

/** The checks side by side; the commands of one check one after the other. */
async function checks(): Promise<number> {
  const ends = await Promise.all(
    Object.entries(CHECKS).map(async ([name, commands]) => {
      for (const command of commands) {
        const ended = await run(command, true);
        process.stdout.write(ended.output);
        if (ended.code !== 0) {
          const words = command.slice(2);
          const shown = words.length > 6 ? [...words.slice(0, 4), `… and ${words.length - 4} more`] : words;
          process.stderr.write(`test-run: ${name} failed (${shown.join(' ')}, exit ${ended.code})\n`);
          return ended.code;
        }
      }
      return 0;
    }),
  );
  return ends.find((code) => code !== 0) ?? 0;
}

async function step(name: string): Promise<number> {
  if (name === 'checks') return checks();
  const layer = LAYERS[name];
  if (!layer) {
    process.stderr.write(`test-run: unknown step ${JSON.stringify(name)} (steps: checks, ${Object.keys(LAYERS).join(', ')})\n`);
    return 2;
  }
  return (await run(layer(), false)).code;
}

/** The layer's totals from its TAP file; undefined for the checks and for a layer that wrote none. */
function totalsOf(name: string): StepEnd['totals'] {
  if (!(name in LAYERS)) return undefined;
  try {
    return tapTotals(readFileSync(tapFile(name), 'utf8'));
  } catch {
    return undefined;
  }
}

async function main(steps: string[]): Promise<number> {
  const began = performance.now();
  const ended: StepEnd[] = [];
  let code = 0;
  for (const name of steps) {
    const started = performance.now();
    code = await step(name);
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`test-run: ${name} ${Math.round(seconds)} s${code ? `, exit ${code}` : ''}\n`);
    ended.push({ name, seconds, code, totals: totalsOf(name) });
    if (code !== 0) break;
  }
  process.stdout.write(`${summaryLine(ended, (performance.now() - began) / 1000)}\n`);
  return code;
}

process.exitCode = await main(process.argv.slice(2));
