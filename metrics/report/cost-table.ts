/** summary.md's cost section: $ per million cold starts, rows N, a column per framework. */
import { costExplanation, costPerMillion, dollars } from '../analyse/cost.ts';
import type { ReportContext } from './write.ts';
import type { MarkdownSection } from './markdown.ts';
import { pivotTables } from './markdown.ts';

export function costSection(context: ReportContext): MarkdownSection {
  const { cost } = context;
  const table = pivotTables(context.summaries, 'firstResponse', (s) => {
    const median = s.metrics.firstResponse?.median;
    return median === undefined ? '–' : dollars(costPerMillion(median, cost));
  });
  const what = cost.customPrice ? `${cost.memoryMB} MB at $${cost.pricePerGBs}/GB-s` : `${cost.memoryMB} MB, ${cost.arch}`;
  return {
    title: `Cost: $ per million cold starts (AWS Lambda, ${what})`,
    body: `${table}\n\n${costExplanation(cost)}`,
  };
}
