/**
 * Every figure summary.md's per-cell tables show, found in summary.csv (issue 36: "summary.csv holds
 * every figure summary.md shows, per architecture"). A table row is matched to its CSV row by the cell's
 * label (the CSV's `file` column) or, in a pivot table, by framework, route count and the group's
 * dimensions (its `### k=v, …` heading), in the power-tuning table by framework (and the dimensions in its
 * label), route count and the memory size of the column (or of the choice); an estimate row of one architecture only to the columns of that
 * architecture (`…_arm64`) and the columns no architecture changes. Every number in a checked cell must
 * be one of that row's CSV values as summary.md rounds it (ms, $, one or two decimals, whole, a factor rounded up), or
 * lie in a text the row's CSV holds verbatim (estimate_beyond_evidence).
 */
import { parse } from 'csv-parse/sync';
import { dollars, ms } from '../../metrics/core/format.ts';
import { factorText } from '../../metrics/analyse/estimate-interval.ts';

/** Sections whose tables are not per cell, or whose figures are derived from the CSV's, and why (the explicit exceptions). */
export const UNCHECKED_SECTIONS: Record<string, string> = {
  'First hits': "first request is firstResponse − listen (or − init), a difference of two CSV columns; K is the run's --first-hits",
  'Scaling with routes': 'a fit per framework and metric, not per cell: scaling.md',
  'Where the time goes': 'phases are medians of per-sample differences of marks; samples.jsonl has the marks',
  'The answer': "the lever tables' ratios: levers.md",
  'Which lever helps': "the lever tables' ratios: levers.md",
};

/** Columns a checked table shows that are not a figure of the run: text, or the calibration table's own figures. */
const TEXT_COLUMNS = new Set(['', 'as on Lambda', 'invalid body', 'reference cell', 'real row', 'real Init Duration', 'real Duration']);

/** CSV columns that do not depend on the architecture: an estimate row of any architecture may show them. */
const ARCHITECTURE_FREE =
  /^(?!estimate_|cost_)|^estimate_init_code_loading_ms$|^estimate_init_excess_|^estimate_init_fitted_up_to_ms$|^estimate_extrapol/;

interface Table {
  section: string;
  group: Record<string, string>;
  header: string[];
  rows: string[][];
}

function cellsOf(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** The tables of summary.md, each with its section and the `### k=v, …` group heading above it. */
export function tablesOf(markdown: string): Table[] {
  const tables: Table[] = [];
  let section = '';
  let group: Record<string, string> = {};
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('## ')) [section, group] = [line.slice(3), {}];
    else if (line.startsWith('### '))
      group = Object.fromEntries(
        line
          .slice(4)
          .split(', ')
          .map((kv) => kv.split('=') as [string, string]),
      );
    else if (line.startsWith('|') && /^\| *:?-/.test(lines[i + 1] ?? '')) {
      const header = cellsOf(line);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(cellsOf(lines[i]!));
      tables.push({ section, group, header, rows });
    }
  }
  return tables;
}

/**
 * The ways summary.md writes a CSV value; the CSV holds it to 0.001, so a figure summary.md rounded
 * from the unrounded value may sit on the other side of a rounding boundary: both neighbours count.
 */
function renderings(value: number): string[] {
  return [-0.0005, 0, 0.0005].flatMap((delta) => {
    const abs = Math.abs(value) + delta;
    return [
      ms(abs),
      dollars(abs).slice(1),
      abs.toFixed(1),
      abs.toFixed(2),
      String(Math.round(abs)),
      String(Math.abs(value)),
      // a factor beyond the evidence, rounded up (estimate-interval.ts factorText)
      factorText(abs).slice(1),
    ];
  });
}

/** The numbers of one markdown cell, signs and thousands separators dropped (the CSV's renderings are unsigned too). */
function numbersOf(text: string): string[] {
  return [...text.replace(/(\d),(\d{3})/g, '$1$2').matchAll(/\d+(?:\.\d+)?/g)].map((m) => m[0]);
}

/**
 * A cell's text less the texts the row's CSV holds verbatim (a column whose value is words, such as
 * estimate_beyond_evidence's "beyond evidence: ×1.19 on loading"): their figures are in the CSV as printed.
 */
function withoutTexts(text: string, entries: readonly [string, string][]): string {
  const texts = entries.map(([, v]) => v).filter((v) => /[a-z]{3}/i.test(v) && !Number.isFinite(Number(v)));
  // the longest first: a short value ("validated") may sit inside a longer one ("… running part unvalidated")
  return texts.sort((a, b) => b.length - a.length).reduce((rest, t) => rest.split(t).join(' '), text);
}

export interface Miss {
  section: string;
  row: string;
  column: string;
  figure: string;
}

/**
 * The figures of summary.md's per-cell tables that summary.csv does not hold. `constants` are figures
 * of the model rather than the run (1 + k), allowed anywhere.
 */
export function figuresMissingFromCsv(markdown: string, csv: string, constants: readonly string[] = []): Miss[] {
  const records = parse<Record<string, string>>(csv, { columns: true });
  const byFile = new Map(records.map((r) => [r.file!, r]));
  const misses: Miss[] = [];
  for (const table of tablesOf(markdown)) {
    if (Object.keys(UNCHECKED_SECTIONS).some((s) => table.section.startsWith(s))) continue;
    const pivot = table.header[0] === 'routes';
    const power = table.header[0] === 'framework' && table.header[1] === 'routes';
    for (const row of table.rows) {
      if (power) {
        misses.push(...powerRowMisses(table, row, records, constants));
        continue;
      }
      const architecture = table.header.includes('as on Lambda') ? row[table.header.indexOf('as on Lambda')]!.split(' ')[1] : undefined;
      const several = architecture !== undefined && records.some((r) => `estimate_init_duration_ms_${architecture}` in r);
      table.header.forEach((column, c) => {
        if (c === 0 || TEXT_COLUMNS.has(column)) return;
        const record = pivot
          ? records.find((r) => r.framework === column && r.routes === row[0] && Object.entries(table.group).every(([k, v]) => r[k] === v))
          : byFile.get(row[0]!.replace(/\\([[\]|_*`])/g, '$1'));
        const text = row[c] ?? '';
        if (!record) {
          if (numbersOf(text).length) misses.push({ section: table.section, row: row[0]!, column, figure: `(no CSV row) ${text}` });
          return;
        }
        const own = Object.entries(record).filter(([k]) => !several || ARCHITECTURE_FREE.test(k) || k.endsWith(`_${architecture}`));
        const pool = new Set(own.flatMap(([, v]) => (v !== '' && Number.isFinite(Number(v)) ? renderings(Number(v)) : [])));
        for (const figure of numbersOf(withoutTexts(text, own)))
          if (!pool.has(figure) && !constants.includes(figure)) misses.push({ section: table.section, row: row[0]!, column, figure });
      });
    }
  }
  return misses;
}

/** The power-tuning table's row: each size's "ms · $" and each choice's "MB ($, ms)" against that size's CSV row. */
function powerRowMisses(table: Table, row: string[], records: Record<string, string>[], constants: readonly string[]): Miss[] {
  const [, framework, extras] = /^(\S+?)(?: \\?\[(.*?)\\?\])?$/.exec(row[0]!) ?? [];
  const dims = Object.fromEntries((extras ? extras.split(', ') : []).map((kv) => kv.split('=') as [string, string]));
  const misses: Miss[] = [];
  table.header.forEach((column, c) => {
    if (c < 2) return;
    const text = row[c] ?? '';
    const memory = /^(\d+) MB$/.exec(column)?.[1] ?? /^(\d+) MB/.exec(text)?.[1];
    if (memory === undefined) return;
    const record = records.find(
      (r) => r.framework === framework && r.routes === row[1] && r.memory === memory && Object.entries(dims).every(([k, v]) => r[k] === v),
    );
    const pool = new Set(Object.values(record ?? {}).flatMap((v) => (v !== '' && Number.isFinite(Number(v)) ? renderings(Number(v)) : [])));
    for (const figure of numbersOf(withoutTexts(text, Object.entries(record ?? {}))))
      if (!pool.has(figure) && !constants.includes(figure)) misses.push({ section: table.section, row: row[0]!, column, figure });
  });
  return misses;
}
