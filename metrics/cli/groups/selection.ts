/** Selection: which generated cells a run has (frameworks × routes × variants × shapes × schemas), their targets and measures. */
import type { Command, OptionValues } from '@commander-js/extra-typings';
import { DIMENSIONS, MEASURES, SCHEMAS, SHAPES, TARGETS, VARIANTS } from '../../core/dimensions.ts';
import { DEFAULT_SOURCE, type CellSpec, type GeneratedSource } from '../../core/run-spec.ts';
import { parseAllList, parseChoiceList, parseFrameworks, parseRoutes } from '../../core/parse.ts';
import { dimensionOption, type Empty, type OptsOf } from './common.ts';

const SELECTION = 'Selection:';
const defaults = DEFAULT_SOURCE;

/** `--measure`: timed and/or counted cells; on `run` and `measure` alike (the dimension, not the command). */
export function measureOption() {
  return dimensionOption(DIMENSIONS.measure, '--measure', parseChoiceList('--measure', MEASURES));
}

/** `--frameworks`, `--routes`, `--variant`, `--shape`, `--schema`: which generated files (run, generate, hyperfine, lambda-package). */
export function addSourceGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command
    .optionsGroup(SELECTION)
    .addOption(dimensionOption(DIMENSIONS.framework, '--frameworks', parseFrameworks))
    .addOption(dimensionOption(DIMENSIONS.routes, '--routes', parseRoutes))
    .addOption(dimensionOption(DIMENSIONS.variant, '--variant', parseAllList('--variant', VARIANTS)))
    .addOption(dimensionOption(DIMENSIONS.shape, '--shape', parseAllList('--shape', SHAPES)))
    .addOption(dimensionOption(DIMENSIONS.schema, '--schema', parseAllList('--schema', SCHEMAS)));
}

type SourceOpts = OptsOf<ReturnType<typeof addSourceGroup<[], Empty, Empty>>>;

/** The generated files the options select. */
export function sourceOf(opts: SourceOpts): GeneratedSource {
  const d = defaults;
  return {
    kind: 'generated',
    frameworks: opts.frameworks ?? d.frameworks,
    routes: opts.routes ?? [...d.routes],
    variants: opts.variant ?? [...d.variants],
    shapes: opts.shape ?? [...d.shapes],
    schemas: opts.schema ?? [...d.schemas],
  };
}

/** The files, their targets and their measures: `run`'s cells. */
export function addSelectionGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return addSourceGroup(command)
    .addOption(dimensionOption(DIMENSIONS.target, '--target', parseChoiceList('--target', TARGETS)))
    .addOption(measureOption());
}

type SelectionOpts = OptsOf<ReturnType<typeof addSelectionGroup<[], Empty, Empty>>>;

/** The generated source the options select, and the targets and measures of its cells. */
export function selectionOf(opts: SelectionOpts): { source: GeneratedSource; cells: Partial<CellSpec> } {
  return {
    source: sourceOf(opts),
    cells: { ...(opts.target ? { targets: opts.target } : {}), ...(opts.measure ? { measures: opts.measure } : {}) },
  };
}
