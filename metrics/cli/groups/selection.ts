/** Selection: which generated cells a run has (frameworks × routes × variants × shapes × schemas), their targets and measures. */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { MEASURES, SCHEMAS, SHAPES, TARGETS, VARIANTS } from '../../core/dimensions.ts';
import { DEFAULT_SOURCE, DEFAULT_SPEC, type CellSpec, type GeneratedSource } from '../../core/run-spec.ts';
import { parseAllList, parseChoiceList, parseFrameworks, parseRoutes } from '../../core/parse.ts';
import { byDefault, type Empty, type OptsOf } from './common.ts';

const SELECTION = 'Selection:';
const defaults = DEFAULT_SOURCE;

/** `--measure`: timed and/or counted cells; on `run` and `measure` alike (the dimension, not the command). */
export function measureOption() {
  return new Option(
    '--measure <list>',
    `comma list of ${MEASURES.join(', ')}: timed cells (wall and CPU time) and/or counted cells ` +
      '(instructions per phase under valgrind, deterministic); the same dimension on run and measure' +
      byDefault(DEFAULT_SPEC.cells.measures.join(',')),
  )
    .argParser(parseChoiceList('--measure', MEASURES))
    .helpGroup(SELECTION);
}

/** `--frameworks`, `--routes`, `--variant`, `--shape`, `--schema`: which generated files (run, generate, hyperfine, lambda-package). */
export function addSourceGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command
    .optionsGroup(SELECTION)
    .addOption(
      new Option(
        '-f, --frameworks <list>',
        'comma-separated frameworks, or all (those whose packages are installed)' +
          byDefault(defaults.frameworks === 'all' ? 'all' : defaults.frameworks.join(',')),
      ).argParser(parseFrameworks),
    )
    .addOption(
      new Option('-r, --routes <list>', 'comma-separated route counts, each 1–100000' + byDefault(defaults.routes.join(','))).argParser(
        parseRoutes,
      ),
    )
    .addOption(
      new Option('--variant <variant>', `${VARIANTS.join(', ')} or all (comma list)` + byDefault(defaults.variants.join(','))).argParser(
        parseAllList('--variant', VARIANTS),
      ),
    )
    .addOption(
      new Option(
        '--shape <list>',
        `route shapes, comma list of ${SHAPES.join(', ')} or all` + byDefault(defaults.shapes.join(',')),
      ).argParser(parseAllList('--shape', SHAPES)),
    )
    .addOption(
      new Option(
        '--schema <list>',
        `schema weights of the bodies, comma list of ${SCHEMAS.join(', ')} or all` + byDefault(defaults.schemas.join(',')),
      ).argParser(parseAllList('--schema', SCHEMAS)),
    );
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
    .addOption(
      new Option(
        '--target <list>',
        `comma list of ${TARGETS.join(', ')}: a long-running HTTP server, ` +
          "or a handler behind the framework's Lambda adapter under a Runtime API the runner plays" +
          byDefault(DEFAULT_SPEC.cells.targets.join(',')),
      ).argParser(parseChoiceList('--target', TARGETS)),
    )
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
