/**
 * The levers' answer (levers.md's first section, a section of summary.md and chart-levers.svg): per
 * app, every variant of build × compile cache × runtime with its cold start (p50 and p25–p75), its
 * Lambda Init estimate (handlers), its $ per million cold starts, the bytes it ships, its place on the
 * Pareto front (fastest and cheapest marked), and what to change to get it. Variants that are
 * unsupported, failed or answered differently are listed with their reason and not ranked.
 */
import path from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { leverAnswer, type AnswerGroup, type AnswerVariant, type Objective } from '../analyse/answer.ts';
import { dollars, markdownTable, ms, type Align } from '../core/format.ts';
import { markdownCode, markdownText } from '../core/escape.ts';
import { CHANGE_DIMENSIONS, type ChangeDimension } from '../core/dimensions.ts';
import { cellFile, type Cell } from '../core/cell.ts';
import type { RunMeta } from '../core/meta.ts';
import { APP_SOURCE } from '../core/dimensions.ts';
import { CHART_CONFIG, logTicks, renderSvg } from './charts.ts';
import type { MarkdownSection, ReportContext } from './contract.ts';
import { leverValues, ratioText } from './levers.ts';
import { BEYOND_EVIDENCE_NOTE, coverageLabel } from './code-loading.ts';
import { targetKind, isLocalHandler } from '../core/kinds.ts';

export const ANSWER_CHART = 'chart-levers.svg';

/** Bytes in decimal units (kB = 1000 bytes, MB = 10^6), as package limits and registries write them. */
export function bytesText(bytes: number | undefined): string {
  if (bytes === undefined) return '–';
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1e6).toFixed(bytes < 1e8 ? 2 : 0)} MB`;
}

function answerOf(context: Pick<ReportContext, 'summaries' | 'cost' | 'calibration' | 'meta'>): AnswerGroup[] {
  return leverAnswer(context.summaries, {
    cost: context.cost,
    calibration: context.calibration,
    ...(context.meta?.shipped ? { shipped: context.meta.shipped } : {}),
  });
}

/** The change dimensions that vary among a group's variants. */
function varying(group: AnswerGroup): ChangeDimension[] {
  return CHANGE_DIMENSIONS.filter((d) => new Set(group.variants.map((v) => v.summary.cell[d])).size > 1);
}

/** A variant's name: its value of each dimension that varies (`bundle-min · cache warm · node24`). */
export function variantName(cell: Cell, dimensions: readonly ChangeDimension[]): string {
  const part: Record<ChangeDimension, (c: Cell) => string> = {
    build: (c) => c.build,
    compileCache: (c) => `cache ${c.compileCache}`,
    runtime: (c) => c.runtime,
  };
  return dimensions.map((d) => part[d](cell)).join(' · ') || 'as is';
}

/** The app's entry as the user named it (its file name only: no path of this machine), or the generated file. */
function entryOf(cell: Cell, meta: RunMeta | undefined): string {
  if (cell.source !== APP_SOURCE) return cellFile(cell);
  // a handler's eager cell: the ES module that awaits its init export (the heading says what it holds)
  if (cell.init === 'eager') return EAGER_ENTRY;
  const source = meta?.spec.source;
  const app = source?.kind === 'apps' ? source.apps.find((a) => a.name === cell.framework) : undefined;
  return app ? path.basename(app.file) : `${cell.framework}.js`;
}

/** The file an eager handler ships: an ES module (Lambda's client awaits its top-level await in INIT). */
const EAGER_ENTRY = 'index.mjs';

/** esbuild's target for a cell's runtime: its Node line (from the version the run recorded for `node`), esnext for Bun. */
function esbuildTarget(cell: Cell, meta: RunMeta | undefined): string | undefined {
  if (cell.runtime === 'bun') return 'esnext';
  const major = /^node(?:js)?(\d+)/.exec(cell.runtime)?.[1] ?? /v(\d+)\./.exec(meta?.runtimes[cell.runtime] ?? '')?.[1];
  return major ? `node${major}` : undefined;
}

/** The snapshot's two commands after the bundle (plan/snapshot.ts writes the wrapper beside the bundle). */
const SNAPSHOT_CHANGE =
  'wrap it so that its `listen` calls wait for the deserialized main function (coldstart writes the wrapper beside the bundle: ' +
  '`<bundle>.snapshot.js`), then `node --snapshot-blob dist/app.blob --build-snapshot dist/snapshot.js` and start with ' +
  '`node --snapshot-blob dist/app.blob` on the same node build';

/** What to change for one dimension's value, or undefined when it is the base (as it is). */
function changeOf(d: ChangeDimension, cell: Cell, base: string, meta: RunMeta | undefined): string | undefined {
  const value = cell[d];
  if (value === base) return undefined;
  switch (d) {
    case 'build': {
      if (value === 'plain') return 'ship the files as they are with their node_modules (`--build plain`)';
      const target = esbuildTarget(cell, meta);
      const minify = value === 'bundle-min' ? ' --minify' : '';
      // an eager file is bundled as an ES module, its top-level await kept (plan/bundle.ts)
      const [format, outfile] = cell.init === 'eager' ? ['esm', EAGER_ENTRY] : ['cjs', 'index.js'];
      const esbuild =
        `esbuild ${entryOf(cell, meta)} --bundle --platform=node --format=${format}${target ? ` --target=${target}` : ''}${minify} ` +
        `--outfile=dist/${outfile}`;
      if (value === 'snapshot') return `${markdownCode(esbuild)}; ${SNAPSHOT_CHANGE} (\`--build snapshot\`)`;
      return `${markdownCode(esbuild)} (\`--build ${value}\`)`;
    }
    case 'compileCache':
      return value === 'warm'
        ? '`NODE_COMPILE_CACHE=<dir>` filled by one start at build time, shipped beside the code (`--compile-cache warm`)'
        : '`NODE_COMPILE_CACHE=<dir>`, empty at each start (`--compile-cache cold`: the cost of filling it)';
    case 'runtime': {
      if (value.startsWith('nodejs')) return `Lambda runtime ${markdownText(value)} (\`--lambda-runtime ${markdownText(value)}\`)`;
      const version = meta?.runtimes[value];
      const what = value === 'node' ? 'the node running coldstart' : value;
      return `run on ${markdownText(what)}${version ? ` (${markdownText(version)})` : ''} (\`--runtime ${markdownText(value)}\`)`;
    }
  }
}

function whatToChange(cell: Cell, bases: Record<ChangeDimension, string>, meta: RunMeta | undefined): string {
  const changes = CHANGE_DIMENSIONS.flatMap((d) => changeOf(d, cell, bases[d], meta) ?? []);
  return changes.length ? changes.join('; ') : 'nothing: as it is';
}

function marksOf(v: AnswerVariant): string {
  if (v.unranked) return `not ranked: ${markdownText(v.unranked.length > 200 ? `${v.unranked.slice(0, 200)}…` : v.unranked)}`;
  const marks = [v.fastest && '**fastest**', v.cheapest && '**cheapest**', v.smallest && 'smallest', v.front && 'on the front'];
  return marks.filter(Boolean).join(', ') || 'dominated';
}

function spreadText(v: AnswerVariant): string {
  const s = v.coldStart;
  return s ? `${ms(s.p50)} (${ms(s.p25)}–${ms(s.p75)})` : '–';
}

/** The group's heading: the app (or framework and routes) and what else sets it apart. */
function headingOf(cell: Cell): string {
  const what = `${cell.framework}, ${cell.routes} route${cell.routes === 1 ? '' : 's'}, ${cell.target}`;
  const extras = [
    cell.memory ? `${cell.memory} MB` : '',
    cell.source === APP_SOURCE ? '' : cell.variant,
    cell.shape !== 'flat' ? `shape ${cell.shape}` : '',
    cell.schema !== 'small' ? `schema ${cell.schema}` : '',
    isLocalHandler(cell.target) ? `start ${cell.bootstrap}, file cache ${cell.fileCache}` : '',
    // the eager form: a handler's is index.mjs, importing it and awaiting its init export (measure --init-export)
    cell.init === 'eager' ? (cell.source === APP_SOURCE ? `init eager: ${EAGER_ENTRY} awaits its init export in INIT` : 'init eager') : '',
  ].filter(Boolean);
  if (cell.source === APP_SOURCE) {
    const kind = targetKind(cell.target).handler ? 'handler' : 'server';
    return markdownText(`${cell.framework} (your ${kind}${extras.length ? `; ${extras.join(', ')}` : ''})`);
  }
  return markdownText(extras.length ? `${what} (${extras.join(', ')})` : what);
}

/** The base of each change dimension: its first value in the run (the command line's order). */
function basesOf(context: Pick<ReportContext, 'summaries' | 'meta'>): Record<ChangeDimension, string> {
  return Object.fromEntries(CHANGE_DIMENSIONS.map((d) => [d, leverValues(d, context.summaries, context.meta)[0] ?? ''])) as Record<
    ChangeDimension,
    string
  >;
}

/** An estimate's interval in brackets within its evidence, the beyond-evidence mark beyond it (analyse/estimate-interval.ts). */
function estimateMark(v: AnswerVariant, interval: { low: number; high: number } | undefined, text: (value: number) => string): string {
  if (v.init?.beyondEvidence) return ` ${v.init.beyondEvidence}`;
  return interval ? ` (${text(interval.low)}–${text(interval.high)})` : '';
}

/** One group's table. */
export function answerTable(group: AnswerGroup, bases: Record<ChangeDimension, string>, meta: RunMeta | undefined): string {
  const dims = varying(group);
  const lambda = isLocalHandler(group.cell.target);
  const base = group.variants.find((v) => CHANGE_DIMENSIONS.every((d) => v.summary.cell[d] === bases[d]));
  const sized = group.variants.some((v) => v.shipped);
  const headers = [
    'variant',
    'cold start p50 (p25–p75), ms',
    'vs as is',
    ...(lambda ? ['Lambda Init, ms: measured → estimate'] : []),
    '$ per M cold starts',
    ...(sized ? ['package'] : []),
    'Pareto',
    'what to change',
  ];
  const rows = group.variants.map((v) => {
    const ratio =
      base?.coldStart && v.coldStart && !v.unranked && base !== v
        ? ratioText(v.coldStart.p50 / base.coldStart.p50)
        : base === v
          ? '1.00×'
          : '–';
    return [
      markdownText(variantName(v.summary.cell, dims)),
      v.unranked ? '–' : spreadText(v),
      v.unranked ? '–' : ratio,
      ...(lambda
        ? [v.init && !v.unranked ? `${ms(v.init.measured)} → ${ms(v.init.estimate)}${estimateMark(v, v.init.interval, ms)}` : '–']
        : []),
      v.unranked ? '–' : `${dollars(v.cost?.perMillion)}${v.init ? estimateMark(v, v.costInterval, dollars) : ''}`,
      ...(sized ? [bytesText(v.shipped?.bytes)] : []),
      marksOf(v),
      whatToChange(v.summary.cell, bases, meta),
    ];
  });
  const align: Align[] = [
    'left',
    'right',
    'right',
    ...(lambda ? ['right' as const] : []),
    'right',
    ...(sized ? ['right' as const] : []),
    'left',
    'left',
  ];
  return markdownTable(headers, rows, align);
}

const OBJECTIVE_TEXT: Record<Objective, string> = { coldStart: 'cold start p50', cost: '$ per million', bytes: 'package bytes' };

/** The sentences under a group's table: the fastest and the cheapest, and whether the spreads tell them apart. */
function verdict(group: AnswerGroup, dims: readonly ChangeDimension[]): string[] {
  const ranked = group.variants.filter((v) => !v.unranked);
  const fastest = ranked.find((v) => v.fastest);
  if (!fastest?.coldStart) return ['- No variant answered: nothing to rank.'];
  const name = (v: AnswerVariant) => `**${markdownText(variantName(v.summary.cell, dims))}**`;
  const lines = [`- Fastest: ${name(fastest)}, ${ms(fastest.coldStart.p50)} ms at the median.`];
  const close = ranked.filter((v) => v !== fastest && v.coldStart && v.coldStart.p25 <= fastest.coldStart!.p75);
  if (close.length) {
    lines.push(
      `- Its p25–p75 overlaps ${close.map(name).join(', ')}: the samples do not tell them apart; more samples (\`--samples\`) would.`,
    );
  }
  const cheapest = ranked.find((v) => v.cheapest);
  if (cheapest) {
    lines.push(
      cheapest === fastest
        ? `- Cheapest: the same variant (${dollars(cheapest.cost?.perMillion)} per million cold starts).`
        : `- Cheapest: ${name(cheapest)}, ${dollars(cheapest.cost?.perMillion)} per million cold starts.`,
    );
  }
  lines.push(`- The front is decided on ${group.objectives.map((o) => OBJECTIVE_TEXT[o]).join(', ')}.`);
  return lines;
}

/**
 * What `lambda:package` does with the fastest variant of a handler: coldstart packages generated
 * Lambda cells as a bundle (plain or minified); the user's own handlers, a plain build and a compile
 * cache it does not package, each said with its reason.
 */
export function packagingLine(group: AnswerGroup): string | undefined {
  if (!isLocalHandler(group.cell.target)) return undefined;
  const fastest = group.variants.find((v) => v.fastest);
  if (!fastest) return undefined;
  const cell = fastest.summary.cell;
  const why: string[] = [];
  if (cell.source === APP_SOURCE) {
    why.push(
      '`lambda:package` packages generated cells only, not your handler: zip the bundle the esbuild command above writes as ' +
        `\`${cell.init === 'eager' ? EAGER_ENTRY : 'index.js'}\` and set the Handler to \`index.<export>\``,
    );
  } else if (cell.build === 'plain') {
    why.push('`lambda:package` ships a bundle, never the plain files: the closest is `--build bundle`');
  }
  if (cell.compileCache !== 'off') {
    why.push(
      'no compile cache: a cache holds code for the one Node build that wrote it and, unless made with NODE_COMPILE_CACHE_PORTABLE=1 ' +
        "(Node ≥ 24.12), for the files' absolute paths; Lambda moves its runtime's patch version without notice, so a cache made here " +
        'would be rejected there, silently; make it in the image that deploys, with the exact runtime',
    );
  }
  const runtime = cell.runtime.startsWith('nodejs') ? ` --lambda-runtime ${cell.runtime}` : '';
  const build = cell.build === 'plain' ? 'bundle' : cell.build;
  const command =
    cell.source === APP_SOURCE
      ? undefined
      : `npm run lambda:package -- --frameworks ${cell.framework} --routes ${cell.routes} --variant ${cell.variant}` +
        `${runtime} --build ${build}${cell.init === 'eager' ? ' --init eager' : ''} --out DIR`;
  if (command) return `- Packaged by ${markdownCode(command)}${why.length ? `; ${why.join('; ')}` : ''}.`;
  return `- Packaging the fastest for Lambda: ${why.join('; ')}.`;
}

const EXPLANATION =
  'Every variant of the levers you change (build, compile cache, runtime) for each app, fastest first: the cold start ' +
  "(ms from spawn to the verified first answer; median and p25–p75), its ratio to the variant as it is, a handler's Init " +
  'measured here and estimated on Lambda (see the Lambda estimate in summary.md for its source and error), $ per million cold starts ' +
  "(summary.md's cost model), and the bytes it would ship (a bundle; or the app's files with the folders of the packages it loads; " +
  'plus a compile cache made at build time; kB = 1000 bytes). **On the front**: no other variant is at least as good on every ' +
  'objective and better on one. A variant that is unsupported, never answered, or answered differently from the plain build is ' +
  'listed with its reason and not ranked.';

/** The answer's markdown, headings at `level`; undefined when no lever of the answer varies. */
export function answerMarkdown(
  context: Pick<ReportContext, 'summaries' | 'cost' | 'calibration' | 'meta' | 'codeLoading' | 'reference'>,
  level: string,
): string | undefined {
  const groups = answerOf(context);
  if (groups.length === 0) return undefined;
  const bases = basesOf(context);
  const estimated = groups.some((g) => g.variants.some((v) => v.init?.interval ?? v.init?.beyondEvidence));
  // an estimate's interval names its coverage; beyond the evidence, the mark stands in its place (issue 47)
  const coverage = coverageLabel(context.codeLoading, context.reference?.codeLoading !== undefined);
  const intervals = estimated ? ` An estimate's interval is in brackets beside it and its $ (${coverage}); ${BEYOND_EVIDENCE_NOTE}` : '';
  const parts = [`${EXPLANATION}${intervals}`];
  for (const group of groups) {
    const packaging = packagingLine(group);
    parts.push(
      `${level} ${headingOf(group.cell)}`,
      answerTable(group, bases, context.meta),
      [...verdict(group, varying(group)), ...(packaging ? [packaging] : [])].join('\n'),
    );
  }
  parts.push(`![every variant: cold start against what it ships](${ANSWER_CHART})`);
  return parts.join('\n\n');
}

export function hasAnswerChart(context: ReportContext): boolean {
  return answerOf(context).length > 0;
}

interface AnswerPoint {
  app: string;
  variant: string;
  ms: number;
  low: number;
  high: number;
  x: number;
  front: string;
}

/** Cold start (p50 with its p25–p75) against the package bytes (or, without sizes, the $ per million), front marked. */
export function answerSpec(groups: AnswerGroup[]): TopLevelSpec {
  const ranked = groups.flatMap((g) => g.variants.filter((v) => !v.unranked).map((v) => ({ g, v })));
  const bySize = ranked.length > 0 && ranked.every(({ v }) => v.shipped);
  const values: AnswerPoint[] = ranked.map(({ g, v }) => ({
    app: headingOf(g.cell),
    variant: variantName(v.summary.cell, varying(g)),
    ms: v.coldStart!.p50,
    low: v.coldStart!.p25,
    high: v.coldStart!.p75,
    x: bySize ? v.shipped!.bytes : (v.cost?.perMillion ?? 0),
    front: v.front ? 'on the front' : 'dominated',
  }));
  const msTicks = logTicks(Math.min(...values.map((v) => v.low)), Math.max(...values.map((v) => v.high)));
  const xTitle = bySize ? 'package, bytes (log)' : '$ per million cold starts (log)';
  const x = { field: 'x', type: 'quantitative' as const, title: xTitle, scale: { type: 'log' as const, nice: true } };
  const y = {
    field: 'ms',
    type: 'quantitative' as const,
    title: 'cold start p50, ms (log)',
    scale: { type: 'log' as const, domain: [msTicks[0]!, msTicks.at(-1)!], nice: false },
    axis: { values: msTicks },
  };
  const color = { field: 'app', type: 'nominal' as const, title: 'app' };
  return {
    title: { text: 'Every variant: cold start against what it ships', subtitle: 'p50 with p25–p75; filled: on the Pareto front' },
    config: CHART_CONFIG,
    width: 640,
    height: 400,
    data: { values: values as unknown as Record<string, unknown>[] },
    layer: [
      { mark: { type: 'rule' }, encoding: { x, y: { ...y, field: 'low' }, y2: { field: 'high' }, color } },
      {
        mark: { type: 'point', size: 80 },
        encoding: {
          x,
          y,
          color,
          shape: {
            field: 'front',
            type: 'nominal',
            title: 'Pareto',
            scale: { domain: ['on the front', 'dominated'], range: ['circle', 'cross'] },
          },
          fill: { condition: { test: "datum.front === 'on the front'", field: 'app', type: 'nominal' }, value: 'white' },
        },
      },
      { mark: { type: 'text', align: 'left', dx: 7, dy: -7, fontSize: 10 }, encoding: { x, y, text: { field: 'variant' } } },
    ],
  };
}

export function answerChart(context: ReportContext): Promise<string> {
  return renderSvg(answerSpec(answerOf(context)));
}

export function answerSection(context: ReportContext): MarkdownSection | undefined {
  const body = answerMarkdown(context, '###');
  return body ? { title: 'The answer: every variant of the levers', body } : undefined;
}
