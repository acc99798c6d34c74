/**
 * Instruction counts of counted cells: the phases from the cumulative counts at the marks, and how
 * far two counts of one cell may differ. Counts are deterministic up to a small spread (V8's
 * deterministic flags leave a few ten-thousandths), so one sample per side is enough to compare.
 */
import type { InstructionMarks } from '../core/samples.ts';

/**
 * The phases of a counted sample and its total (instructions from exec to the first answer written).
 * `ready` is the user's own server's start-up (`measure --entry`): the app preload marks no import or
 * route registration, so start → listen is one phase there (generated cells split it in three).
 */
export const INSTRUCTION_FIGURES = ['boot', 'ready', 'import', 'registration', 'listen', 'init', 'firstRequest', 'total'] as const;
export type InstructionFigure = (typeof INSTRUCTION_FIGURES)[number];

/** What each figure is, for tables and the comparison's heading. */
export const INSTRUCTION_FIGURE_TEXT: Record<InstructionFigure, string> = {
  boot: 'runtime boot (exec → start)',
  ready: "an app's start-up (start → listen: its imports, its own work, its listen)",
  import: 'framework import (start → imported)',
  registration: 'route registration (imported → startup)',
  listen: 'listen (startup → listen)',
  init: 'rest of INIT (startup → the first GET next)',
  firstRequest: 'first request (ready → first answer written)',
  total: 'total (exec → first answer written)',
};

/** The phases and the total of one sample's cumulative counts; a figure is missing when a mark it needs is. */
export function instructionFigures(marks: InstructionMarks): Partial<Record<InstructionFigure, number>> {
  const figures: Partial<Record<InstructionFigure, number>> = {};
  const between = (from: number | undefined, to: number | undefined) => (from !== undefined && to !== undefined ? to - from : undefined);
  const ready = marks.listen ?? marks.init;
  const values: [InstructionFigure, number | undefined][] = [
    ['boot', marks.start],
    // only an app server's marks lack imported and startup
    ['ready', marks.imported === undefined && marks.startup === undefined ? between(marks.start, marks.listen) : undefined],
    ['import', between(marks.start, marks.imported)],
    ['registration', between(marks.imported, marks.startup)],
    ['listen', between(marks.startup, marks.listen)],
    ['init', between(marks.startup, marks.init)],
    ['firstRequest', between(ready, marks.firstResponse)],
    ['total', marks.firstResponse],
  ];
  for (const [figure, value] of values) if (value !== undefined) figures[figure] = value;
  return figures;
}

/**
 * The default threshold of `compare --metric instructions`: a count that moved by more than this
 * share is a change. Two counts of one cell differed by at most 0.1 % on the machines measured
 * (README), so 0.5 % flags a 1 % regression from one sample per side and leaves noise alone.
 */
export const DEFAULT_INSTRUCTION_THRESHOLD = 0.005;

/** (max − min) / median of a cell's counts: 0 with one sample. */
export function relativeSpread(stats: { min: number; max: number; median: number }): number {
  return stats.median > 0 ? (stats.max - stats.min) / stats.median : 0;
}
