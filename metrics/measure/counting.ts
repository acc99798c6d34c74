/**
 * A counted sample (measure `instructions`): the child runs under valgrind's callgrind with V8's
 * deterministic flags, and the instructions it executes are cut at the probe's own marks without
 * touching the generated file. The probe calls process.cpuUsage() at every mark (start, imported,
 * startup, listen, and once the first answer is written), which is the only caller of libc's
 * getrusage() in node: callgrind's `--dump-before=getrusage` writes one dump of the counts so far at
 * each of them. A Lambda cell's INIT ends at its first `GET next`, where no mark is: there the runner
 * asks callgrind for a dump through vgdb while the child waits for its event (it executes nothing
 * then, so the cut is exact). The dumps' `totals:` lines, in order, are the phases. The user's own server
 * (`measure --entry`) runs with the app preload, which marks only start, listen and the first answer:
 * an app has no import or route-registration mark, so its start-up (start → listen) is one phase.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Target } from '../core/dimensions.ts';
import { APP_SOURCE, type Cell } from '../core/cell.ts';
import type { InstructionMark, InstructionMarks, SampleRecord } from '../core/samples.ts';
import type { SampleHooks } from './sample.ts';
import { targetKind } from '../core/kinds.ts';
import { PACKAGE_CUTS_ENV, writePackageCutsPreload } from '../../generators/package-cuts.ts';
import { packageCounts, parseCutLog, type CutDump } from './package-cuts.ts';

/** The libc function the probe's process.cpuUsage() calls at every mark, and node calls nowhere else. */
export const CUT_FUNCTION = 'getrusage';

/**
 * V8 flags of a counted child. `--predictable` makes V8 single-threaded (no background compiling,
 * sweeping or marking: that work runs on the main thread, in a fixed order); the fixed seeds make
 * hashing and Math.random the same in every run. CodSpeed also passes --no-opt, --expose-gc,
 * --allow-natives-syntax, --interpreted-frames-native-stack and a fixed heap size for its benchmark
 * harness: they change what a real cold start executes (or only serve profiling), so they are left out.
 */
export const COUNT_V8_FLAGS = ['--predictable', '--hash-seed=1', '--random-seed=1'] as const;

/**
 * `--atomic-gc`: V8's major GC marks in one pause instead of in steps between the program's work. Incremental
 * marking's steps are sized and scheduled by the clock, so how much the program executes while marking is on (its
 * write barriers) moves with the speed of the run, and counts of one large cell with it spread where counts without it
 * agree (docs/findings/2026-12-05-atomic-gc.md). The gate counts this way; a plain counted run does not unless asked.
 */
export const ATOMIC_GC_FLAGS = ['--no-incremental-marking'] as const;

/** The V8 flags of a counted child: COUNT_V8_FLAGS, and ATOMIC_GC_FLAGS under --atomic-gc (meta.json records them). */
export function countV8Flags(atomicGc: boolean | undefined): string[] {
  return [...COUNT_V8_FLAGS, ...(atomicGc ? ATOMIC_GC_FLAGS : [])];
}

/** How much longer a counted sample may take than a timed one (valgrind slows node 27–108×, callgrind a bit more). */
export const COUNT_SLOWDOWN = 10;

/** The dump description the Lambda INIT cut carries. */
const INIT_HINT = 'coldstart-init';

/** valgrind and vgdb on PATH, or undefined. */
export interface CountTools {
  valgrind: string;
  vgdb: string;
}

function onPath(name: string, pathList: string | undefined): string | undefined {
  for (const dir of (pathList ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function findCountTools(pathList: string | undefined = process.env.PATH): CountTools | undefined {
  const valgrind = onPath('valgrind', pathList);
  const vgdb = onPath('vgdb', pathList);
  return valgrind && vgdb ? { valgrind, vgdb } : undefined;
}

export const NO_VALGRIND =
  '--measure instructions needs valgrind (and its vgdb) on PATH: apt-get install valgrind (Debian/Ubuntu), or dnf install valgrind';

/** One dump of callgrind: what triggered it, the instructions it holds and, under the cache simulation, its estimated cycles. */
export interface Dump {
  trigger: string;
  instructions: number;
  cycles?: number;
}

/**
 * The cache geometry of `--cache-sim` (callgrind's own defaults would be read from the host's CPU, so two
 * machines would simulate two caches): 32 KiB 8-way L1 instruction and data caches and an 8 MiB 16-way last
 * level, 64-byte lines, a common x86-64 and arm64 server core. Fixed, the estimate is the same on every machine.
 */
export const CACHE_SIM_ARGS = ['--cache-sim=yes', '--I1=32768,8,64', '--D1=32768,8,64', '--LL=8388608,16,64'] as const;

/**
 * Estimated cycles of a dump's event totals, as iai-callgrind (gungraun) estimates them: every instruction
 * read costs 1, an L1 miss 10 more and a last-level miss 100 more (Ir + 10 × (I1mr + D1mr + D1mw) + 100 ×
 * (ILmr + DLmr + DLmw)). Undefined when the events are not those of the cache simulation.
 */
export function estimatedCycles(events: Readonly<Record<string, number>>): number | undefined {
  const names = ['Ir', 'I1mr', 'D1mr', 'D1mw', 'ILmr', 'DLmr', 'DLmw'] as const;
  if (names.some((name) => events[name] === undefined)) return undefined;
  const e = events as Record<(typeof names)[number], number>;
  return e.Ir + 10 * (e.I1mr + e.D1mr + e.D1mw) + 100 * (e.ILmr + e.DLmr + e.DLmw);
}

/** The `desc: Trigger:`, `events:` and `totals:` of one callgrind output file; undefined when it has no totals. */
export function parseDump(text: string): Dump | undefined {
  const trigger = /^desc: Trigger: (.*)$/m.exec(text)?.[1] ?? '';
  const totals = /^(?:totals|summary): (\d+(?: \d+)*)\s*$/m.exec(text)?.[1];
  if (totals === undefined) return undefined;
  const values = totals.split(' ').map(Number);
  const names = (/^events: (.*)$/m.exec(text)?.[1] ?? 'Ir').trim().split(/\s+/);
  const events: Record<string, number> = {};
  names.forEach((name, i) => {
    if (values[i] !== undefined) events[name] = values[i];
  });
  const instructions = events.Ir ?? values[0]!;
  const cycles = estimatedCycles(events);
  return { trigger: trigger.trim(), instructions, ...(cycles === undefined ? {} : { cycles }) };
}

/** The numbered dumps of one process, in order (`cg.<pid>.<n>`); the one written at exit is not needed. */
export function readDumps(dir: string): Dump[] {
  const numbered = readdirSync(dir)
    .map((name) => ({ name, match: /^cg\.\d+\.(\d+)$/.exec(name) }))
    .filter((f) => f.match)
    .map((f) => ({ name: f.name, n: Number(f.match![1]) }))
    .sort((a, b) => a.n - b.n);
  return numbered.map((f) => {
    const dump = parseDump(readFileSync(path.join(dir, f.name), 'utf8'));
    if (!dump) throw new Error(`callgrind dump ${f.name} has no totals`);
    return dump;
  });
}

/**
 * Which marks a counted child is cut at: a generated server at the probe's start, imported, startup,
 * listen and firstResponse; a Lambda handler (generated, or the user's under the `probe` bootstrap) at
 * start, imported, startup, init (the runner's dump) and firstResponse; the user's own server
 * (`app-server`) at the preload's start, listen and firstResponse. A Web Function's file is a server's.
 */
export type CountShape = Target | 'app-server';
export const COUNT_MARKS: Record<CountShape, readonly InstructionMark[]> = {
  server: ['start', 'imported', 'startup', 'listen', 'firstResponse'],
  'lambda-web': ['start', 'imported', 'startup', 'listen', 'firstResponse'],
  lambda: ['start', 'imported', 'startup', 'init', 'firstResponse'],
  'app-server': ['start', 'listen', 'firstResponse'],
};

/** The count shape of a cell: by its target, and for a server by where its file comes from. */
export function countShapeOf(cell: Pick<Cell, 'target' | 'source'>): CountShape {
  if (targetKind(cell.target).handler) return 'lambda';
  return cell.source === APP_SOURCE ? 'app-server' : 'server';
}

/** The cumulative counts at the marks of `shape` from the dumps, or a one-line reason why they do not fit. */
export function countsFromDumps(
  dumps: readonly Dump[],
  shape: CountShape,
  field: 'instructions' | 'cycles' = 'instructions',
): InstructionMarks | string {
  const marks = COUNT_MARKS[shape];
  const expected = marks.map((mark) => (mark === 'init' ? 'init' : CUT_FUNCTION));
  const seen = dumps.map((d) => (d.trigger.includes(INIT_HINT) ? 'init' : d.trigger.includes(CUT_FUNCTION) ? CUT_FUNCTION : d.trigger));
  if (seen.length !== expected.length || seen.some((s, i) => s !== expected[i])) {
    const have = seen.length ? seen.join(', ') : 'none';
    const cuts = seen.filter((s) => s === CUT_FUNCTION).length;
    // only the probe calls getrusage in node: more cuts than marks means the code called it too
    const extra =
      cuts > expected.filter((e) => e === CUT_FUNCTION).length
        ? `: the code itself calls ${CUT_FUNCTION}() (process.cpuUsage() or process.resourceUsage()), which cuts too`
        : '';
    const wrote = `callgrind wrote ${dumps.length} (${have})`;
    return `instruction counts: expected ${expected.length} cuts (${expected.join(', ')}), ${wrote}${extra}`;
  }
  const counts: InstructionMarks = {};
  let total = 0;
  for (const [i, mark] of marks.entries()) {
    const value = dumps[i]![field];
    if (value === undefined) return `callgrind's dump ${i + 1} has no ${field}`;
    total += value;
    counts[mark] = total;
  }
  return counts;
}

const run = promisify(execFile);

/** The package cuts' log, in the sample's own dump folder. */
const PACKAGE_CUTS_LOG = 'package-cuts.json';

/** What a dump of a `--count-packages` sample is: a process.cpuUsage() cut, the Lambda INIT cut, or neither. */
const cutKind = (dump: CutDump) => (dump.trigger.includes(INIT_HINT) ? 'init' : dump.trigger.includes(CUT_FUNCTION) ? 'cut' : 'other');

/** A `--count-packages` sample's dumps replayed with its log (measure/package-cuts.ts): the marks' dumps, each package's own count. */
function packageDumps(dir: string, dumps: readonly Dump[]): { dumps: Dump[]; packages: Record<string, number> } {
  let log: string;
  try {
    log = readFileSync(path.join(dir, PACKAGE_CUTS_LOG), 'utf8');
  } catch {
    throw new Error("--count-packages: the package cuts' log was not written (the app did not exit normally on SIGTERM)");
  }
  const events = parseCutLog(log);
  if (typeof events === 'string') throw new Error(events);
  const split = packageCounts(dumps, events, cutKind);
  if (typeof split === 'string') throw new Error(split);
  return { dumps: split.markDumps, packages: split.packages };
}

/**
 * The hooks of one counted sample: the launch wrapped in valgrind (its dumps into a folder of its
 * own under `scratch`), a Lambda INIT cut through vgdb, and afterwards the counts into the record
 * (or the sample failed with why there are none). The folder is removed in every case. With
 * `packages` (--count-packages) the child also loads the package cuts' preload first, and the record
 * gets each package's own instructions (measure/package-cuts.ts).
 */
export function countHooks(options: {
  tools: CountTools;
  scratch: string;
  shape: CountShape;
  cacheSim?: boolean;
  packages?: boolean;
  /** --atomic-gc: V8's major GC without incremental marking */
  atomicGc?: boolean;
}): SampleHooks {
  const dir = mkdtempSync(path.join(options.scratch, 'count-'));
  const prefix = path.join(dir, 'vgdb');
  const cuts = options.packages ? ['--require', writePackageCutsPreload()] : [];
  let pid: () => number | undefined = () => undefined;
  let initCut: string | undefined;
  return {
    // valgrind names its vgdb pipes and dumps with the pid it sees: in a PID namespace of its own that
    // would not be the pid vgdb is given
    hostPid: true,
    wrap: (launch) => ({
      ...launch,
      ...(options.packages ? { env: { ...launch.env, [PACKAGE_CUTS_ENV]: path.join(dir, PACKAGE_CUTS_LOG) } } : {}),
      command: options.tools.valgrind,
      args: [
        '-q',
        '--tool=callgrind',
        `--callgrind-out-file=${path.join(dir, 'cg.%p')}`,
        `--dump-before=${CUT_FUNCTION}`,
        '--dump-instr=no',
        '--compress-strings=no',
        `--vgdb-prefix=${prefix}`,
        ...(options.cacheSim ? CACHE_SIM_ARGS : []),
        launch.command,
        ...countV8Flags(options.atomicGc),
        ...cuts,
        ...launch.args,
      ],
    }),
    spawned: (childPid) => {
      pid = childPid;
    },
    endOfInit: async () => {
      const valgrind = pid();
      // the runner cuts INIT by a dump only where the shape has an init mark (a handler)
      if (!COUNT_MARKS[options.shape].includes('init') || valgrind === undefined) return;
      try {
        await run(options.tools.vgdb, [`--vgdb-prefix=${prefix}`, `--pid=${valgrind}`, 'dump', INIT_HINT], { timeout: 60_000 });
      } catch (error) {
        initCut = `vgdb could not cut INIT: ${(error as Error).message.split('\n')[0]}`;
      }
    },
    after: (record: SampleRecord) => {
      try {
        if (!record.ok) return Promise.resolve();
        if (initCut) throw new Error(initCut);
        const read = readDumps(dir);
        const split = options.packages ? packageDumps(dir, read) : undefined;
        const dumps = split?.dumps ?? read;
        const counts = countsFromDumps(dumps, options.shape);
        if (typeof counts === 'string') throw new Error(counts);
        record.instructions = counts;
        if (split) record.packages = split.packages;
        if (options.cacheSim) {
          const cycles = countsFromDumps(dumps, options.shape, 'cycles');
          if (typeof cycles === 'string') throw new Error(cycles);
          record.cycles = cycles;
        }
      } catch (error) {
        record.ok = false;
        record.error = (error as Error).message;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      return Promise.resolve();
    },
  };
}
