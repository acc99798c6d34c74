/** Small formatting helpers shared by the output formats. */
import { oneLine } from './escape.ts';

/** Milliseconds for a table: whole ms from 100 up, one decimal below. */
export function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return Math.abs(value) >= 100 ? Math.round(value).toString() : value.toFixed(1);
}

/** Round for CSV: microsecond resolution is all a ms timeline carries. */
export function round3(value: number | undefined): number | '' {
  return value === undefined || !Number.isFinite(value) ? '' : Math.round(value * 1000) / 1000;
}

export function duration(msTotal: number | undefined): string {
  if (msTotal === undefined) return '–';
  const s = Math.round(msTotal / 1000);
  if (s < 60) return `${(msTotal / 1000).toFixed(1)} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h} h ${m} min` : `${m} min ${s % 60} s`;
}

export type Align = 'left' | 'right' | 'center';

/**
 * A GitHub markdown table; cells are escaped so a `|` in text cannot break it, and as one line (a
 * control, escape or bidi character as a space: core/escape.ts oneLine) so none reaches a terminal.
 */
export function markdownTable(headers: string[], rows: string[][], align: Align[] = []): string {
  const escape = (text: string) => oneLine(text).replace(/\|/g, '\\|');
  const rule = headers.map((_, i) => ({ left: ':--', right: '--:', center: ':-:' })[align[i] ?? 'left']);
  return [headers, rule, ...rows].map((row, r) => `| ${(r === 1 ? row : row.map(escape)).join(' | ')} |`).join('\n');
}

/** A share as a percentage for text: one decimal (`2.4 %`), two significant digits below 1 % (`0.05 %`). */
export function percent(share: number): string {
  const value = share * 100;
  return `${Math.abs(value) >= 1 || value === 0 ? value.toFixed(1) : Number(value.toPrecision(2)).toString()} %`;
}

/** Dollars as the cost tables write them: three decimals below $1, two below $100, whole dollars above; a dash without a figure. */
export function dollars(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return value >= 100 ? `$${value.toFixed(0)}` : value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(3)}`;
}
