/**
 * The tables of docs/findings/2026-11-27-seed-table.md, computed from the run folders it cites and
 * from the seed's own published table (MionKit/Benchmarks, COLD-STARTS.md). The finding's prose
 * stays as written; each table sits between `<!-- seed-table:NAME -->` and `<!-- /seed-table:NAME -->`
 * and `npm run docs:seed-table` rewrites what is between them. test/unit/seed-table.test.ts fails
 * when the committed finding differs from what this writes, so no figure of it can drift from its
 * samples. Medians of the successful samples (phase `sample`), as summary.md takes them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { markdownTable, ms } from '../core/format.ts';
import { RUNTIME_NAMES } from '../core/dimensions.ts';
import { readMeta } from '../store/meta-file.ts';
import {
  ROOT,
  SEED_ROUTES,
  type Pick,
  RunSamples,
  diff,
  wall,
  fromStart,
  cpu,
  cpuBetween,
  readyInstructions,
  ratio,
  right,
  millions,
  quadratic,
  perRoute,
} from './seed-table-figures.ts';

/** The finding, relative to the project root. */
export const SEED_FINDING = 'docs/findings/2026-11-27-seed-table.md';

/** The run folders the finding rests on, relative to the project root. */
export const SEED_RUNS = {
  /** node-http, mion, fastify 5, deepkit at 1–5,000 routes, 10 samples, a quiet machine */
  table: 'results/published/2026-11-27-seed-table',
  /** the seed's own fastify app (distinct and identical querystring schemas) on fastify 4 and 5, timed */
  apps: 'results/published/2026-11-27-seed-fastify-apps',
  /** the same apps counted (instructions) at 100 and 1,000 routes */
  counts: 'results/published/2026-11-27-seed-fastify-counts',
  /** coldstart's generated fastify file on fastify 4 */
  fastify4: 'results/published/2026-11-27-seed-fastify4',
  /** fastify and mion on node 20, 22 and 24 */
  nodeLines: 'results/published/2026-11-27-seed-node-lines',
  /** fastify's router calls for N GET routes and their HEAD twins, on find-my-way 8 and 9, counted once a size (superseded) */
  router: 'results/published/2026-11-27-seed-router-counts',
  /** the same router calls counted 5 times at 1,000 to 5,000 routes in steps of 500 to 1,000 */
  routerRamp: 'results/published/2026-12-04-seed-router-ramp',
  /** the seed's mion app: one handler object for every route, or one each */
  mionApps: 'results/published/2026-11-27-seed-mion-apps',
} as const;

/**
 * The seed's table as published (MionKit/Benchmarks COLD-STARTS.md at commit 959060e: node v20.11.0,
 * darwin x64, 8 vCPUs, 5 samples, the mean of each rounded to a ms): [startup, listen] per route count.
 */
const SEED_TABLE: Record<'fastify' | 'mion', Record<number, readonly [number, number]>> = {
  fastify: {
    10: [132, 198],
    100: [144, 293],
    500: [217, 688],
    1000: [327, 1198],
    2000: [520, 2133],
    3000: [789, 3235],
    5000: [1749, 6105],
  },
  mion: { 10: [82, 87], 100: [82, 88], 500: [83, 91], 1000: [83, 96], 2000: [84, 106], 3000: [85, 115], 5000: [85, 126] },
};
/** The seed's rows beside ours: the same clock (from the first statement), the spawn-based figures, and the ratios. */
function seedBesideOurs(table: RunSamples): string {
  const rows: string[][] = [];
  for (const framework of ['fastify', 'mion', 'deepkit'] as const) {
    for (const n of SEED_ROUTES) {
      const seed = framework === 'deepkit' ? undefined : SEED_TABLE[framework][n];
      const startup = table.median(framework, n, fromStart('startup'));
      const listen = table.median(framework, n, fromStart('listen'));
      rows.push([
        framework,
        String(n),
        seed ? String(seed[0]) : '–',
        seed ? String(seed[1]) : '–',
        ms(table.median(framework, n, fromStart('imported'))),
        ms(startup),
        ms(listen),
        ratio(startup, seed?.[0]),
        ratio(listen, seed?.[1]),
        ms(table.median(framework, n, wall('listen'))),
        ms(table.median(framework, n, wall('firstResponse'))),
      ]);
    }
  }
  const headers = [
    'framework',
    'routes',
    'seed startup',
    'seed listen',
    'ours: imported',
    'ours: startup',
    'ours: listen',
    'startup ours/seed',
    'listen ours/seed',
    'listen from spawn',
    'firstResponse from spawn',
  ];
  return markdownTable(headers, rows, right(headers.length));
}

/** Each framework against its own 10-route figure, and mion against fastify, in the seed and here. */
function ratios(table: RunSamples): string {
  const rows = SEED_ROUTES.map((n) => {
    const seed = (f: 'fastify' | 'mion', i: 0 | 1) => SEED_TABLE[f][n]![i];
    const listen = (f: string, routes = n) => table.median(f, routes, fromStart('listen'));
    const first = (f: string, routes = n) => table.median(f, routes, wall('firstResponse'));
    return [
      String(n),
      ratio(seed('fastify', 1), SEED_TABLE.fastify[10]![1]),
      ratio(listen('fastify'), listen('fastify', 10)),
      ratio(first('fastify'), first('fastify', 10)),
      ratio(seed('mion', 1), SEED_TABLE.mion[10]![1]),
      ratio(listen('mion'), listen('mion', 10)),
      ratio(first('mion'), first('mion', 10)),
      ratio(listen('deepkit'), listen('deepkit', 10)),
      ratio(first('deepkit'), first('deepkit', 10)),
      ratio(seed('mion', 1), seed('fastify', 1)),
      ratio(listen('mion'), listen('fastify')),
      ratio(first('mion'), first('fastify')),
    ];
  });
  const headers = [
    'routes',
    'fastify seed listen ×',
    'fastify ours listen ×',
    'fastify ours firstResponse ×',
    'mion seed listen ×',
    'mion ours listen ×',
    'mion ours firstResponse ×',
    'deepkit ours listen ×',
    'deepkit ours firstResponse ×',
    'mion/fastify seed listen',
    'mion/fastify ours listen',
    'mion/fastify ours firstResponse',
  ];
  return markdownTable(headers, rows, right(headers.length));
}

/** Spawn → first statement (the runtime's boot), and listen on both clocks. */
function timeOrigin(table: RunSamples): string {
  const rows: string[][] = [];
  for (const framework of ['node-http', 'fastify', 'mion', 'deepkit']) {
    for (const n of [10, 5000]) {
      const boot = table.median(framework, n, wall('start'));
      const spawn = table.median(framework, n, wall('listen'));
      const start = table.median(framework, n, fromStart('listen'));
      rows.push([framework, String(n), ms(boot), ms(spawn), ms(start), ratio(spawn, start)]);
    }
  }
  const headers = ['framework', 'routes', 'spawn → start', 'listen from spawn', 'listen from start', 'spawn/start'];
  return markdownTable(headers, rows, right(headers.length));
}

const APP_ROUTES = [10, 1000, 3000, 5000] as const;

/** The seed's fastify app on fastify 4 and 5, distinct and identical schemas: CPU time to listen, same run. */
function fastifyVersions(apps: RunSamples): string {
  const at = (version: 4 | 5, schemas: string, n: number) => apps.median(`f${version}-${schemas}-${n}`, 1, cpu('listen'));
  const rows = APP_ROUTES.map((n) => [
    String(n),
    ms(at(4, 'distinct', n)),
    ms(at(5, 'distinct', n)),
    ms(at(4, 'identical', n)),
    ms(at(5, 'identical', n)),
    ratio(at(4, 'distinct', n), at(5, 'distinct', n)),
    ratio(at(4, 'distinct', n), at(4, 'identical', n)),
    ratio(at(5, 'distinct', n), at(5, 'identical', n)),
    ms(diff(at(4, 'distinct', n), at(5, 'distinct', n))),
    quadratic(diff(at(4, 'distinct', n), at(5, 'distinct', n)), n),
    ms(diff(at(4, 'identical', n), at(5, 'identical', n))),
    quadratic(diff(at(4, 'identical', n), at(5, 'identical', n)), n),
  ]);
  const slopes = (version: 4 | 5, schemas: string) => perRoute(APP_ROUTES.map((n) => [n, at(version, schemas, n)]));
  const slopeRows = (['distinct', 'identical'] as const).flatMap((schemas) =>
    ([4, 5] as const).map((version) => [`fastify ${version}, ${schemas}`, ...slopes(version, schemas)]),
  );
  const headers = [
    'routes',
    'fastify 4 distinct',
    'fastify 5 distinct',
    'fastify 4 identical',
    'fastify 5 identical',
    '4/5 (distinct)',
    'distinct/identical (4)',
    'distinct/identical (5)',
    '4 − 5, distinct',
    '÷ N², distinct (ns)',
    '4 − 5, identical',
    '÷ N², identical (ns)',
  ];
  const slopeHeaders = ['ms of CPU per added route', ...APP_ROUTES.slice(1).map((n, i) => `${APP_ROUTES[i]}→${n}`)];
  return `${markdownTable(headers, rows, right(headers.length))}\n\n${markdownTable(slopeHeaders, slopeRows, right(slopeHeaders.length))}`;
}

/** The same apps counted: instructions from the first statement to listen. */
function fastifyCounts(counts: RunSamples): string {
  const at = (name: string, n: number) => counts.median(`${name}-${n}`, 1, readyInstructions);
  const perAdded = (name: string) => {
    const a = at(name, 100);
    const b = at(name, 1000);
    return a === undefined || b === undefined ? '–' : `${((b - a) / 900 / 1e6).toFixed(2)} M`;
  };
  const rows = [
    [
      'fastify 4, distinct',
      millions(at('f4-fastify-distinct', 100)),
      millions(at('f4-fastify-distinct', 1000)),
      perAdded('f4-fastify-distinct'),
    ],
    [
      'fastify 5, distinct',
      millions(at('f5-fastify-distinct', 100)),
      millions(at('f5-fastify-distinct', 1000)),
      perAdded('f5-fastify-distinct'),
    ],
    ['fastify 5, identical', millions(at('f5-fastify-identical', 100)), '–', '–'],
    [
      'fastify 4/5, distinct',
      ratio(at('f4-fastify-distinct', 100), at('f5-fastify-distinct', 100)),
      ratio(at('f4-fastify-distinct', 1000), at('f5-fastify-distinct', 1000)),
      '–',
    ],
    ['distinct/identical, fastify 5', ratio(at('f5-fastify-distinct', 100), at('f5-fastify-identical', 100)), '–', '–'],
  ];
  const headers = ['instructions, start → listen', '100 routes', '1,000 routes', 'per added route (100→1,000)'];
  return markdownTable(headers, rows, right(headers.length));
}

/** The route counts every source of the growth table has: the seed's, the published run's and the fastify 4 run's. */
const GROWTH_ROUTES = [10, 1000, 3000, 5000] as const;

const ROUTER_ROUTES = [1000, 2000, 3000, 3500, 4000, 4500, 5000] as const;

/**
 * find-my-way 8 against 9 under fastify's calls for N GET routes: instructions from the first statement to
 * listen (median of the counted samples, with how many and their spread), and per added route.
 */
function routerCounts(router: RunSamples): string {
  const at = (version: 4 | 5, n: number) => router.median(`f${version}-router-${n}`, 1, readyInstructions);
  const counted = (version: 4 | 5, n: number) => router.values(`f${version}-router-${n}`, 1, readyInstructions);
  const spread = (version: 4 | 5, n: number) => {
    const values = counted(version, n);
    return values.length ? `${((Math.max(...values) - Math.min(...values)) / 1e6).toFixed(1)} M` : '–';
  };
  const added = (version: 4 | 5) => perRoute(ROUTER_ROUTES.map((n) => [n, at(version, n)]));
  const [added8, added9] = [added(4), added(5)];
  const perAdded = (text: string | undefined) => (text === undefined || text === '–' ? '–' : `${(Number(text) / 1e6).toFixed(2)} M`);
  const rows = ROUTER_ROUTES.map((n, i) => [
    String(n),
    `${counted(4, n).length} / ${counted(5, n).length}`,
    millions(at(4, n)),
    spread(4, n),
    millions(at(5, n)),
    ratio(at(4, n), at(5, n)),
    i === 0 ? '–' : `${ROUTER_ROUTES[i - 1]}→${n}`,
    perAdded(added8[i - 1]),
    perAdded(added9[i - 1]),
  ]);
  const headers = [
    'routes (GET + HEAD)',
    'counted samples (8 / 9)',
    'find-my-way 8',
    'max − min, 8',
    'find-my-way 9',
    '8/9',
    'step',
    'per added route, 8',
    'per added route, 9',
  ];
  return markdownTable(headers, rows, right(headers.length));
}

const GAP_ROUTES = [10, 1000, 3000, 5000] as const;

/**
 * Where the seed's growth comes from: listen from the first statement at 10 to 5,000 routes, its growth
 * (5,000 over 10) and its cost per added route below and above 3,000 routes, for the seed's table, the
 * seed's own app on fastify 4 and 5 and coldstart's file on fastify 4 and 5 (CPU time: each run compares
 * within itself); then the ratios of growth that split the gap between the seed's table and ours.
 */
function gap(table: RunSamples, apps: RunSamples, fastify4: RunSamples, lines: RunSamples): string {
  const cpuFromStart: Pick = (s) => diff(s.cpu?.listen, s.cpu?.start);
  const sources: [string, (n: number) => number | undefined][] = [
    ["the seed's table, fastify 4 (wall)", (n) => SEED_TABLE.fastify[n]![1]],
    ["the seed's app, fastify 4 (CPU, apps run)", (n) => apps.median(`f4-distinct-${n}`, 1, cpuFromStart)],
    ["the seed's app, fastify 5 (CPU, apps run)", (n) => apps.median(`f5-distinct-${n}`, 1, cpuFromStart)],
    ["coldstart's file, fastify 4 (CPU, fastify4 run)", (n) => fastify4.median('fastify', n, cpuFromStart)],
    ["coldstart's file, fastify 5 (CPU, node-lines run)", (n) => lines.median('fastify', n, cpuFromStart)],
    ["coldstart's file, fastify 5 (CPU, seed-table run)", (n) => table.median('fastify', n, cpuFromStart)],
    ["coldstart's file, fastify 5 (wall, seed-table run)", (n) => table.median('fastify', n, fromStart('listen'))],
  ];
  const growthOf = (value: (n: number) => number | undefined) => {
    const [low, high] = [value(10), value(5000)];
    return low === undefined || high === undefined ? undefined : high / low;
  };
  const rows = sources.map(([name, value]) => {
    const [, below, above] = perRoute(GAP_ROUTES.map((n) => [n, value(n)]));
    const change =
      below === undefined || above === undefined || below === '–' || above === '–' ? '–' : signedPercent(Number(above) / Number(below) - 1);
    const growth = growthOf(value);
    return [name, ...GAP_ROUTES.map((n) => ms(value(n))), growth === undefined ? '–' : growth.toFixed(1), below!, above!, change];
  });
  const growth = Object.fromEntries(sources.map(([name, value]) => [name, growthOf(value)]));
  const split = [
    [
      "the seed's app on fastify 5 / coldstart's file on fastify 5 (node-lines run: loaded like the apps run)",
      ratio(growth["the seed's app, fastify 5 (CPU, apps run)"], growth["coldstart's file, fastify 5 (CPU, node-lines run)"]),
    ],
    [
      "the seed's app: fastify 4 / fastify 5 (apps run)",
      ratio(growth["the seed's app, fastify 4 (CPU, apps run)"], growth["the seed's app, fastify 5 (CPU, apps run)"]),
    ],
    [
      "the seed's table / coldstart's file on fastify 5 (seed-table run, wall)",
      ratio(growth["the seed's table, fastify 4 (wall)"], growth["coldstart's file, fastify 5 (wall, seed-table run)"]),
    ],
  ];
  const headers = [
    'listen from the first statement, ms',
    ...GAP_ROUTES.map(String),
    '× (5000 / 10)',
    'per added route, 1000→3000',
    'per added route, 3000→5000',
    'change',
  ];
  const splitTable = markdownTable(['ratio of growth × (5000 / 10)', ''], split, ['left', 'right']);
  return `${markdownTable(headers, rows, right(headers.length))}\n\n${splitTable}`;
}

const signedPercent = (value: number) => `${value >= 0 ? '+' : '−'}${Math.round(Math.abs(value) * 100)} %`;

/** Which phase grows: ms per added route between route counts, the seed's and ours, split at the startup mark. */
function growth(table: RunSamples, fastify4: RunSamples): string {
  const seed = (pick: (row: readonly [number, number]) => number) => perRoute(GROWTH_ROUTES.map((n) => [n, pick(SEED_TABLE.fastify[n]!)]));
  const ours = (run: RunSamples, pick: Pick) => perRoute(GROWTH_ROUTES.map((n) => [n, run.median('fastify', n, pick)]));
  const registration: Pick = (s) => diff(s.marks?.startup, s.marks?.imported);
  const ready: Pick = (s) => diff(s.marks?.listen, s.marks?.startup);
  const rows = [
    ['seed, fastify 4: startup (wall)', ...seed(([startup]) => startup)],
    ['seed, fastify 4: listen − startup (wall)', ...seed(([startup, listen]) => listen - startup)],
    ['seed, fastify 4: listen (wall)', ...seed(([, listen]) => listen)],
    ['ours, fastify 5: registration (wall)', ...ours(table, registration)],
    ['ours, fastify 5: startup → listen (wall)', ...ours(table, ready)],
    ['ours, fastify 5: registration (CPU)', ...ours(table, cpuBetween('imported', 'startup'))],
    ['ours, fastify 5: startup → listen (CPU)', ...ours(table, cpuBetween('startup', 'listen'))],
    ['ours on fastify 4: registration (CPU)', ...ours(fastify4, cpuBetween('imported', 'startup'))],
    ['ours on fastify 4: startup → listen (CPU)', ...ours(fastify4, cpuBetween('startup', 'listen'))],
  ];
  const headers = ['ms per added route', ...GROWTH_ROUTES.slice(1).map((n, i) => `${GROWTH_ROUTES[i]}→${n}`)];
  return markdownTable(headers, rows, right(headers.length));
}

const MION_ROUTES = [10, 1000, 5000] as const;

/**
 * The seed's mion app with one handler for every route and with one each, and coldstart's file in the
 * node-lines run (loaded as the apps' run was): CPU time to listen.
 */
function mionHandlers(apps: RunSamples, lines: RunSamples): string {
  const at = (handlers: string, n: number) => apps.median(`mion-${handlers}-${n}`, 1, cpu('listen'));
  const ours = (n: number) => lines.median('mion', n, cpu('listen'));
  const rows = MION_ROUTES.map((n) => [
    String(n),
    String(SEED_TABLE.mion[n]![1]),
    ms(at('identical', n)),
    ms(at('distinct', n)),
    ratio(at('distinct', n), at('identical', n)),
    ms(ours(n)),
  ]);
  const slope = (v: (n: number) => number | undefined) =>
    perRoute([
      [10, v(10)],
      [5000, v(5000)],
    ])[0]!;
  rows.push([
    'ms per route, 10→5000',
    perRoute([
      [10, SEED_TABLE.mion[10]![1]],
      [5000, SEED_TABLE.mion[5000]![1]],
    ])[0]!,
    slope((n) => at('identical', n)),
    slope((n) => at('distinct', n)),
    '–',
    slope(ours),
  ]);
  const headers = [
    'routes',
    'seed listen (wall)',
    'one handler (CPU)',
    'one each (CPU)',
    'each/one',
    'ours, written out (CPU, node-lines run)',
  ];
  return markdownTable(headers, rows, right(headers.length));
}

const NODE_RUNTIMES = RUNTIME_NAMES.filter((r) => r !== 'bun');
const NODE_ROUTES = [10, 1000, 3000, 5000] as const;

/** fastify and mion on three Node lines: CPU time to listen, and each line against node 20. */
function nodeLines(lines: RunSamples): string {
  const rows: string[][] = [];
  for (const framework of ['fastify', 'mion']) {
    for (const n of NODE_ROUTES) {
      const at = (runtime: string) => lines.median(framework, n, cpu('listen'), runtime);
      const at20 = at('node');
      rows.push([framework, String(n), ...NODE_RUNTIMES.map((r) => ms(at(r))), ratio(at('node22'), at20), ratio(at('node24'), at20)]);
    }
  }
  const headers = [
    'framework',
    'routes',
    'CPU listen node 20',
    'node 22',
    'node 24',
    '22/20',
    '24/20',
    'listen from start, node 20 (wall)',
  ];
  return markdownTable(headers, rows, right(headers.length));
}

/** Each run folder of the finding: when, how loaded, and the frameworks it recorded. */
function runsTable(): string {
  const rows = Object.values(SEED_RUNS).map((folder) => {
    const meta = readMeta(path.join(ROOT, folder));
    const during = meta?.load?.during;
    // the share of the CPU time other processes used over the whole run, as summary.md says it
    const share = meta?.load?.run?.others;
    const others = share === undefined ? '–' : `${Math.round(share * 100)} %`;
    const frameworks = Object.entries(meta?.frameworks ?? {})
      .map(([name, f]) => `${name} ${f.version}`)
      .join(', ');
    return [
      `[${path.basename(folder)}](../../${folder}/)`,
      meta?.startedAt.slice(0, 16).replace('T', ' ') ?? '–',
      during ? `${during.load1.min.toFixed(1)}–${during.load1.max.toFixed(1)}` : '–',
      others,
      frameworks || 'apps (see the finding)',
    ];
  });
  const headers = ['run folder', 'started (UTC)', 'load (1 min) on 2 cores', 'other processes', 'frameworks'];
  return markdownTable(headers, rows, ['left', 'left', 'right', 'right', 'left']);
}

/** Every table of the finding, by the name of its markers. */
export function seedTables(): Record<string, string> {
  const table = new RunSamples(SEED_RUNS.table);
  const apps = new RunSamples(SEED_RUNS.apps);
  const counts = new RunSamples(SEED_RUNS.counts);
  const fastify4 = new RunSamples(SEED_RUNS.fastify4);
  const lines = new RunSamples(SEED_RUNS.nodeLines);
  const mion = new RunSamples(SEED_RUNS.mionApps);
  const router = new RunSamples(SEED_RUNS.routerRamp);
  return {
    runs: runsTable(),
    table: seedBesideOurs(table),
    ratios: ratios(table),
    origin: timeOrigin(table),
    versions: fastifyVersions(apps),
    counts: fastifyCounts(counts),
    router: routerCounts(router),
    gap: gap(table, apps, fastify4, lines),
    growth: growth(table, fastify4),
    node: nodeLines(lines),
    mion: mionHandlers(mion, lines),
  };
}

/** The finding's text with every marked table replaced by what the run folders give; an unknown or unclosed marker is an error. */
export function withSeedTables(text: string, tables: Record<string, string> = seedTables()): string {
  return text.replace(/<!-- seed-table:([a-z]+) -->\n[\s\S]*?<!-- \/seed-table:\1 -->/g, (_, name: string) => {
    const table = tables[name];
    if (table === undefined) throw new Error(`${SEED_FINDING}: no table named ${name}`);
    return `<!-- seed-table:${name} -->\n${table}\n<!-- /seed-table:${name} -->`;
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = path.join(ROOT, SEED_FINDING);
  writeFileSync(file, withSeedTables(readFileSync(file, 'utf8')));
  process.stdout.write(`${SEED_FINDING} written\n`);
}
