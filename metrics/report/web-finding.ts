/**
 * The table of a Web Functions finding (docs/findings/2026-12-05-lambda-web.md), written from its run folder:
 * per framework, the INIT (spawn → the endpoint accepting) median at each route count, the largest count's
 * p95 and its margin to the 10 s limit, how many routes fit within 1 s and within 10 s of INIT (the curve
 * fitted on the ready mark, analyse/curve.ts, its 95 % interval), and the modelled figure on Lambda at the
 * largest count (✱). test/unit/findings-web.test.ts recomputes it and checks the finding holds it.
 */
import { curveFits, type RouteBudget } from '../analyse/curve.ts';
import { cpuSpeedsOf } from '../calibration/lambda-cpu-reference.ts';
import { markdownTable, ms } from '../core/format.ts';
import type { ReportContext } from './contract.ts';
import { isWebLimitReason, WEB_FUNCTION_INIT_LIMIT_MS } from '../core/web-platform.ts';
import { webInitRows } from './web-functions.ts';

/** The INIT budgets the finding counts routes against, ms. */
export const WEB_BUDGETS_MS = [1_000, WEB_FUNCTION_INIT_LIMIT_MS] as const;

const whole = (n: number) => Math.round(n).toLocaleString('en-US');

/** A budget as routes that fit: "2,340 (1,980–2,710)", "> 5,000" beyond the measured range, "0" when 1 route passes it. */
function budgetText(budget: RouteBudget | undefined, largest: number): string {
  if (!budget) return '–';
  if (!Number.isFinite(budget.routes)) return `> ${whole(largest)}`;
  const high = Number.isFinite(budget.ci.high) ? whole(budget.ci.high) : `> ${whole(largest)}`;
  return `${whole(budget.routes)} (${whole(budget.ci.low)}–${high})`;
}

/** The smallest route count of `framework` whose every sample failed on the platform's limit, if any. */
function failsAt(summaries: ReportContext['summaries'], framework: string): number | undefined {
  const failing = summaries.filter((s) => s.cell.framework === framework && s.ok === 0 && s.errors.some((e) => isWebLimitReason(e.reason)));
  return failing.length ? Math.min(...failing.map((s) => s.cell.routes)) : undefined;
}

/** The finding's table (markdown), one row per framework in the run's order. */
export function webFindingTable(context: Pick<ReportContext, 'summaries' | 'meta'>): string {
  const rows = webInitRows(context.summaries, cpuSpeedsOf(context.meta?.lambda));
  const routes = [...new Set(rows.map((r) => r.summary.cell.routes))].sort((a, b) => a - b);
  const largest = routes[routes.length - 1] ?? 0;
  const frameworks = [...new Set(rows.map((r) => r.summary.cell.framework))];
  const budgets = WEB_BUDGETS_MS.map((budgetMs) => curveFits(context.summaries, { budgetMs }).filter((f) => f.metric === 'ready'));
  const body = frameworks.map((framework) => {
    const of = (n: number) => rows.find((r) => r.summary.cell.framework === framework && r.summary.cell.routes === n);
    const top = of(largest);
    const within = budgets.map((fits, i) => {
      const text = budgetText(fits.find((f) => f.series.framework === framework)?.budget, largest);
      // past the measured range, the smallest route count whose every sample failed on the limit bounds it
      const failing = WEB_BUDGETS_MS[i] === WEB_FUNCTION_INIT_LIMIT_MS ? failsAt(context.summaries, framework) : undefined;
      return text.startsWith('>') && failing !== undefined ? `${text}, < ${whole(failing)} (fails the limit)` : text;
    });
    return [
      framework,
      ...routes.map((n) => (of(n) ? ms(of(n)!.p50) : '–')),
      top ? ms(top.p95) : '–',
      top ? ms(top.marginP95Ms) : '–',
      ...within,
      top?.estimateMs === undefined ? '–' : `${ms(top.estimateMs)} ✱`,
    ];
  });
  const headers = [
    'framework',
    ...routes.map((n) => `INIT at ${whole(n)} (ms)`),
    `p95 at ${whole(largest)} (ms)`,
    `margin to 10 s at ${whole(largest)}, p95 (ms)`,
    ...WEB_BUDGETS_MS.map((b) => `routes within ${b / 1000} s (95 % CI)`),
    `on Lambda ✱ at ${whole(largest)} (ms)`,
  ];
  return markdownTable(headers, body, ['left', ...Array<'right'>(headers.length - 1).fill('right')]);
}
