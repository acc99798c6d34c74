/**
 * A merged run (`merge`): which part each cell came from, on which machine, and a warning when the
 * parts' machines differ while the run has timed cells (wall and CPU times of different machines do
 * not compare; instruction counts of one node build do, up to the CPU features noted in the README).
 */
import { cellKey, cellLabel } from '../core/cell.ts';
import { markdownTable } from '../core/format.ts';
import { markdownText } from '../core/escape.ts';
import type { MarkdownSection, ReportContext } from './contract.ts';

interface Part {
  from?: unknown;
  shard?: unknown;
  startedAt?: unknown;
  machine?: { os?: unknown; cpu?: unknown; cores?: unknown };
  runtimes?: Record<string, unknown>;
  load?: { busy?: unknown };
  cells?: unknown;
}

function partsOf(context: ReportContext): Part[] {
  const parts = (context.meta as { parts?: unknown } | undefined)?.parts;
  return Array.isArray(parts) ? (parts.filter((p) => p !== null && typeof p === 'object') as Part[]) : [];
}

/** A part's field (its folder's name, its machine: text from outside) as markdown text. */
const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? markdownText(String(value)) : '–');

export function mergedSection(context: ReportContext): MarkdownSection | undefined {
  const parts = partsOf(context);
  if (parts.length === 0) return undefined;
  const machines = new Set(parts.map((p) => JSON.stringify([p.machine?.cpu, p.machine?.cores, p.runtimes])));
  const rows = parts.map((p) => [
    text(p.from),
    text(p.shard),
    text(p.startedAt),
    `${text(p.machine?.cpu)}, ${text(p.machine?.cores)} vCPUs`,
    Object.entries(p.runtimes ?? {})
      .map(([name, version]) => `${markdownText(name)} ${text(version)}`)
      .join(', ') || '–',
    p.load?.busy === true ? 'busy' : p.load ? 'quiet' : '–',
    String(Array.isArray(p.cells) ? p.cells.length : 0),
  ]);
  const where = new Map<string, string>();
  for (const p of parts) if (Array.isArray(p.cells)) for (const key of p.cells) where.set(String(key), text(p.from));
  const timed = context.summaries.filter((s) => !s.unsupported);
  const lines = [
    `Joined from ${parts.length} run folders by \`merge\`; every cell comes from exactly one of them.`,
    '',
    markdownTable(['part', 'shard', 'started', 'machine', 'runtimes', 'load', 'cells'], rows, [
      'left',
      'left',
      'left',
      'left',
      'left',
      'left',
      'right',
    ]),
  ];
  if (machines.size > 1 && timed.length > 0) {
    lines.push(
      '',
      '⚠ The parts ran on different machines (or node builds): the wall and CPU times of cells from different parts do ' +
        'not compare, only those within one part. Instruction counts (`--measure instructions`) of one node build do.',
      '',
      ...timed.map((s) => `- \`${cellLabel(s.cell)}\`: ${where.get(cellKey(s.cell)) ?? '–'}`),
    );
  }
  return { title: 'Merged run', body: lines.join('\n') };
}
