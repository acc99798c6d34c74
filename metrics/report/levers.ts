/**
 * Lever tables (levers.md, and a section of summary.md): for every lever dimension that varies in
 * the run (runtime, build, compileCache, variant), one table with rows framework × N (× the other
 * varying dimensions) and one column per lever value: the median firstResponse and its ratio to the
 * first value. Then, per framework, the lever that gave the largest drop.
 */
import { markdownText } from '../core/escape.ts';
import { median } from 'simple-statistics';
import type { CellSummary } from '../analyse/aggregate.ts';
import type { Cell } from '../core/cell.ts';
import { cliList, DIMENSION_TABLE, leverDimensionsOf, type DimensionTable } from '../core/dimensions.ts';
import type { RunMeta } from '../core/meta.ts';
import type { MetaSpec } from '../core/meta-spec.ts';
import { markdownTable, ms, type Align } from '../core/format.ts';

/**
 * A workload dimension describes the app rather than how it is run (its route shape, its schema
 * weight): it gets a table like a lever, but never counts as "the lever that helps" (an app does not
 * drop its routes to start faster). The dimension table (core/dimensions.ts) says which.
 */
function isWorkload(dimension: string, table: DimensionTable): boolean {
  return table[dimension]?.lever?.workload === true;
}

/** Each lever's list in meta.json's spec (the row's `metaList`), in the order given on the command line (undefined: not recorded). */
function metaList(dimension: string, { source, cells }: MetaSpec, table: DimensionTable): readonly string[] | undefined {
  const name = table[dimension]?.metaList;
  if (!name) return undefined;
  const lists: Record<string, unknown> = { ...(source.kind === 'apps' ? {} : source), ...cells };
  const list = lists[name];
  return Array.isArray(list) ? (list as string[]) : undefined;
}

export const LEVERS_FILE = 'levers.md';

/** The values a dimension takes in the run: in the command line's order when meta.json has it, else the default first. */
/** A cell's value of a dimension of `table` (a test's table may have a row more than Cell). */
function valueOf(cell: Cell, dimension: string): string {
  return String((cell as Readonly<Record<string, string | number>>)[dimension]);
}

/**
 * The values a dimension takes in the run: in the command line's order when meta.json has it, else the default first.
 * `table`: the dimension table (a test passes one with a row more).
 */
export function leverValues(dimension: string, summaries: CellSummary[], meta?: RunMeta, table = DIMENSION_TABLE): string[] {
  const present = [...new Set(summaries.map((s) => valueOf(s.cell, dimension)))];
  const listed = meta ? metaList(dimension, meta.spec, table) : undefined;
  const row = table[dimension];
  const order: readonly (string | number)[] = listed ?? (row ? cliList(row, 'server') : undefined) ?? [];
  const rank = (v: string) => (order.includes(v) ? order.indexOf(v) : order.length);
  return present.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

export function varyingLevers(summaries: CellSummary[], table = DIMENSION_TABLE): string[] {
  return leverDimensionsOf(table).filter((d) => new Set(summaries.map((s) => valueOf(s.cell, d))).size > 1);
}

export function ratioText(ratio: number): string {
  return `${ratio.toFixed(2)}×`;
}

function firstResponse(s: CellSummary | undefined): number | undefined {
  return s && !s.unsupported ? s.metrics.firstResponse?.median : undefined;
}

/** What a table cell says: the median, its ratio to the base, or why there is no figure. */
function figure(s: CellSummary | undefined, base: CellSummary | undefined, isBase: boolean): string {
  if (!s) return '–';
  if (s.unsupported) return 'unsupported';
  const value = firstResponse(s);
  if (value === undefined) return 'failed';
  const reference = firstResponse(base);
  return isBase || reference === undefined ? ms(value) : `${ms(value)} (${ratioText(value / reference)})`;
}

/** One row of a lever table: the cells that differ only in `dimension`. */
interface LeverRow {
  cell: Cell;
  byValue: Map<string, CellSummary>;
}

function rowsOf(dimension: string, summaries: CellSummary[]): LeverRow[] {
  const rows = new Map<string, LeverRow>();
  for (const s of summaries) {
    const key = JSON.stringify({ ...s.cell, [dimension]: null });
    let row = rows.get(key);
    if (!row) {
      row = { cell: s.cell, byValue: new Map() };
      rows.set(key, row);
    }
    row.byValue.set(valueOf(s.cell, dimension), s);
  }
  // summaries come sorted by cell, so rows are in framework, variant, routes … order
  return [...rows.values()];
}

export function leverTable(dimension: string, summaries: CellSummary[], meta?: RunMeta, table = DIMENSION_TABLE): string {
  const values = leverValues(dimension, summaries, meta, table);
  const others = varyingLevers(summaries, table).filter((d) => d !== dimension);
  const base = values[0]!;
  const rows = rowsOf(dimension, summaries).map((row) => [
    row.cell.framework,
    String(row.cell.routes),
    ...others.map((d) => valueOf(row.cell, d)),
    ...values.map((v) => figure(row.byValue.get(v), row.byValue.get(base), v === base)),
  ]);
  const align: Align[] = ['left', 'right', ...others.map(() => 'left' as const), ...values.map(() => 'right' as const)];
  // a runtime's column names its exact version when meta.json has it
  const header = (v: string) => markdownText(dimension === 'runtime' && meta?.runtimes[v] ? `${v} ${meta.runtimes[v]}` : v);
  return markdownTable(['framework', 'routes', ...others, ...values.map(header)], rows, align);
}

/** One lever value against the first value, over every row where both were measured. */
export interface LeverEffect {
  dimension: string;
  value: string;
  base: string;
  /** median of value/base over the comparisons */
  ratio: number;
  comparisons: number;
  /** the comparison with the largest drop in ms */
  largest: { cell: Cell; from: number; to: number };
}

export function leverEffects(framework: string, summaries: CellSummary[], meta?: RunMeta, table = DIMENSION_TABLE): LeverEffect[] {
  const mine = summaries.filter((s) => s.cell.framework === framework);
  const effects: LeverEffect[] = [];
  for (const dimension of varyingLevers(summaries, table).filter((d) => !isWorkload(d, table))) {
    const [base, ...rest] = leverValues(dimension, summaries, meta, table);
    for (const value of rest) {
      const ratios: number[] = [];
      let largest: LeverEffect['largest'] | undefined;
      for (const row of rowsOf(dimension, mine)) {
        const from = firstResponse(row.byValue.get(base!));
        const to = firstResponse(row.byValue.get(value));
        if (from === undefined || to === undefined || from <= 0) continue;
        ratios.push(to / from);
        if (!largest || from - to > largest.from - largest.to) largest = { cell: row.byValue.get(value)!.cell, from, to };
      }
      if (largest) effects.push({ dimension, value, base: base!, ratio: median(ratios), comparisons: ratios.length, largest });
    }
  }
  return effects.sort((a, b) => a.ratio - b.ratio);
}

function where(cell: Cell, dimension: string, summaries: CellSummary[], table: DimensionTable): string {
  const others = varyingLevers(summaries, table).filter((d) => d !== dimension);
  return [`${cell.routes} route${cell.routes === 1 ? '' : 's'}`, ...others.map((d) => `${d}=${valueOf(cell, d)}`)].join(', ');
}

/** One sentence per framework naming the lever with the largest (median relative) drop in firstResponse. */
export function largestDropSentences(summaries: CellSummary[], meta?: RunMeta, table = DIMENSION_TABLE): string[] {
  const frameworks = [...new Set(summaries.map((s) => s.cell.framework))];
  return frameworks.map((framework) => {
    const [best] = leverEffects(framework, summaries, meta, table);
    if (!best) return `- **${framework}**: no lever could be compared (no pair of measured cells).`;
    const lever = `\`${best.dimension}=${best.value}\` (vs ${best.base})`;
    const over = `median ${ratioText(best.ratio)} over ${best.comparisons} comparison${best.comparisons === 1 ? '' : 's'}`;
    if (best.ratio >= 1) return `- **${framework}**: no lever lowered firstResponse; the closest was ${lever}, ${over}.`;
    const { cell, from, to } = best.largest;
    return (
      `- **${framework}**: ${lever} gave the largest drop in firstResponse: ${over}; ` +
      `at most ${ms(from)} → ${ms(to)} ms (${where(cell, best.dimension, summaries, table)}).`
    );
  });
}

const EXPLANATION =
  'Each table varies one lever: a column per value with the median firstResponse ' +
  '(ms from spawn to the verified answer of the LAST route) and, in parentheses, its ratio to the first value. ' +
  '`unsupported`: the runtime cannot do it (not a failure); `failed`: no sample answered (see Failures in summary.md).';

/** The tables and sentences, headings at `level` (`##` in levers.md, `###` inside summary.md); a table per lever row of `table`. */
export function leverMarkdown(
  summaries: CellSummary[],
  meta: RunMeta | undefined,
  level: string,
  table = DIMENSION_TABLE,
): string | undefined {
  const levers = varyingLevers(summaries, table);
  if (levers.length === 0) return undefined;
  const parts = [EXPLANATION];
  for (const dimension of levers) {
    const values = leverValues(dimension, summaries, meta, table);
    parts.push(`${level} ${dimension}: ${values.join(' vs ')} (ratio to ${values[0]})`, leverTable(dimension, summaries, meta, table));
  }
  parts.push(`${level} Largest drop per framework`, largestDropSentences(summaries, meta, table).join('\n'));
  return parts.join('\n\n');
}

/**
 * levers.md: the answer table first when the run has one (report/answer.ts), then a table per lever.
 * Written only when a lever varies (report/write.ts); undefined when none does.
 */
export function leversFile(summaries: CellSummary[], meta: RunMeta | undefined, answer?: string): string | undefined {
  const body = leverMarkdown(summaries, meta, '##');
  if (body === undefined) return undefined;
  const first = answer ? `## The answer: every variant of the levers\n\n${answer}\n\n## Each lever alone\n\n` : '';
  return `# Which lever helps: median firstResponse (ms)\n\n${first}${body}\n`;
}

export function leversSection(summaries: CellSummary[], meta: RunMeta | undefined): { title: string; body: string } | undefined {
  const body = leverMarkdown(summaries, meta, '###');
  return body ? { title: 'Which lever helps (median firstResponse, ms)', body } : undefined;
}
