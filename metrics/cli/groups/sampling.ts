/** Sampling: how many samples, in which order, with which limits; counted cells' own samples, jobs and shards. */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { parsePrecision, precisionSettings } from '../../core/precision-settings.ts';
import { ORDERS, RUN_DIMENSIONS } from '../../core/dimensions.ts';
import { DEFAULT_SPEC, type SamplingSpec } from '../../core/run-spec.ts';
import { parseShard } from '../../core/parse.ts';
import { MAX_TIMEOUT_S, parseChoice, parseInteger, parseSamples, parseSeconds } from '../../core/parse.ts';
import { byDefault, dimensionOption, type Empty, type OptsOf } from './common.ts';

const SAMPLING = 'Sampling:';
const d = DEFAULT_SPEC.sampling;

/** Counted cells under valgrind's cache simulation as well (estimated cycles). */
function cacheSimOption() {
  return new Option(
    '--cache-sim',
    "counted cells also under valgrind's cache simulation (fixed caches: 32 KiB L1, 8 MiB last level): estimated " +
      'cycles (instructions + 10 × L1 misses + 100 × last-level misses) beside the instructions; about 1.8× slower',
  );
}

/** Counted children with V8's major GC atomic (measure/counting.ts ATOMIC_GC_FLAGS). */
function atomicGcOption() {
  return new Option(
    '--atomic-gc',
    "counted cells with V8's major GC in one pause (--no-incremental-marking): incremental marking's steps follow the " +
      'clock, so counts of large cells move with the speed of the run (fastify at 1,000 routes: 0.76 % against 0.01 %); the gate counts so',
  );
}

/** Counted cells cut at each npm package's CommonJS loading (gate --attribute). */
function countPackagesOption() {
  return new Option(
    '--count-packages',
    "counted cells also cut where CommonJS loading enters and leaves an npm package: each package's own instructions " +
      'to the first answer in samples.jsonl (packages); the cuts add their own work to the counts (used by gate --attribute)',
  );
}

/** `what`: the command's own word for a cell (`cell`, `app`). */
export function addSamplingGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  what: string,
) {
  return command
    .optionsGroup(SAMPLING)
    .addOption(
      new Option(
        '-s, --samples <n>',
        `timed samples per ${what}, or auto (rounds until every median is known to --precision); with counted cells only, their count` +
          byDefault(d.samples),
      ).argParser(parseSamples),
    )
    .addOption(
      new Option('-w, --warmup <n>', `unrecorded warm-up runs per ${what}` + byDefault(d.warmup)).argParser(
        parseInteger('--warmup', 0, 100),
      ),
    )
    .addOption(
      new Option(
        '-t, --timeout <seconds>',
        `per-sample limit from spawn to a verified answer (at most ${MAX_TIMEOUT_S})` + byDefault(d.timeoutMs / 1000),
      ).argParser(parseSeconds('--timeout')),
    )
    .addOption(
      new Option(
        '--precision <percent>',
        'with --samples auto: the 95 % CI of each median must lie within ± this share of it' + byDefault(`${d.precision.precision * 100}%`),
      ).argParser(parsePrecision),
    )
    .addOption(
      new Option(
        '--min-samples <n>',
        `with --samples auto: samples every ${what} takes first` + byDefault(d.precision.minSamples),
      ).argParser(parseInteger('--min-samples', 2, 10_000)),
    )
    .addOption(
      new Option(
        '--max-samples <n>',
        `with --samples auto: samples after which a ${what} stops` + byDefault(d.precision.maxSamples),
      ).argParser(parseInteger('--max-samples', 2, 10_000)),
    )
    .addOption(dimensionOption(RUN_DIMENSIONS.order, '--order', parseChoice('--order', ORDERS), { what, lambda: true }))
    .addOption(new Option('--seed <text>', 'seed for --order random' + byDefault(d.seed)))
    .addOption(
      new Option(
        '--count-samples <n>',
        'samples per counted cell (no warm-up); 2 or more reports their spread' + byDefault(d.countSamples),
      ).argParser(parseInteger('--count-samples', 1, 100)),
    )
    .addOption(cacheSimOption())
    .addOption(atomicGcOption())
    .addOption(countPackagesOption())
    .addOption(
      new Option(
        '--jobs <n>',
        'runs in flight at once: counted cells only (default: the cores when every cell is counted, else 1)',
      ).argParser(parseInteger('--jobs', 1, 256)),
    )
    .addOption(
      new Option(
        '--shard <i/n>',
        'measure only the i-th of n deterministic parts of the cells (join the run folders with merge)',
      ).argParser(parseShard),
    );
}

/** `run`'s first hits: requests to further routes of a generated file. */
export function addFirstHitsOption<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command
    .optionsGroup(SAMPLING)
    .addOption(
      new Option(
        '--first-hits <k>',
        'after the timed first answer, one request each to K further distinct routes spread over the table (0: none)' +
          byDefault(d.firstHits),
      ).argParser(parseInteger('--first-hits', 0, 1000)),
    );
}

type SamplingOpts = OptsOf<ReturnType<typeof addSamplingGroup<[], Empty, Empty>>> &
  Partial<OptsOf<ReturnType<typeof addFirstHitsOption<[], Empty, Empty>>>>;

export function samplingOf(opts: SamplingOpts): Partial<SamplingSpec> {
  const precision = precisionSettings({
    precision: opts.precision ?? d.precision.precision,
    minSamples: opts.minSamples ?? d.precision.minSamples,
    maxSamples: opts.maxSamples ?? d.precision.maxSamples,
  });
  return {
    ...(opts.samples !== undefined ? { samples: opts.samples } : {}),
    precision,
    ...(opts.warmup !== undefined ? { warmup: opts.warmup } : {}),
    ...(opts.timeout !== undefined ? { timeoutMs: opts.timeout * 1000 } : {}),
    ...(opts.order ? { order: opts.order } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.firstHits !== undefined ? { firstHits: opts.firstHits } : {}),
    ...(opts.countSamples !== undefined ? { countSamples: opts.countSamples } : {}),
    ...(opts.cacheSim ? { cacheSim: true } : {}),
    ...(opts.countPackages ? { countPackages: true } : {}),
    ...(opts.atomicGc ? { atomicGc: true } : {}),
    ...(opts.jobs !== undefined ? { jobs: opts.jobs } : {}),
    ...(opts.shard ? { shard: opts.shard } : {}),
  };
}
