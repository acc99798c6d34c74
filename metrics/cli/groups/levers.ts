/** Levers: what a cell runs on and how (runtime, build, compile cache, file cache, the node binary). */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { BUILDS, COMPILE_CACHES, DIMENSIONS, FILE_CACHES, RUNTIME_NAMES, type FileCache } from '../../core/dimensions.ts';
import type { CellSpec } from '../../core/run-spec.ts';
import { parseChoiceList, parseVersions } from '../../core/parse.ts';
import { dimensionOption, type Empty, type OptsOf } from './common.ts';

/**
 * `--runtime`, `--build`, `--compile-cache`: the levers of a file run as a process (run, hyperfine);
 * `lambda`: whether the command has Lambda cells too (its --runtime is then the servers').
 */
export function addProcessLevers<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  lambda: boolean,
) {
  const on = { what: 'cell', lambda };
  return command
    .optionsGroup('Levers:')
    .addOption(dimensionOption(DIMENSIONS.runtime, '--runtime', parseChoiceList('--runtime', RUNTIME_NAMES), on))
    .addOption(dimensionOption(DIMENSIONS.build, '--build', parseChoiceList('--build', BUILDS), on))
    .addOption(dimensionOption(DIMENSIONS.compileCache, '--compile-cache', parseChoiceList('--compile-cache', COMPILE_CACHES), on))
    .addOption(dimensionOption(DIMENSIONS.version, '--versions', parseVersions, on));
}

export function addLeverGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return addProcessLevers(command, true)
    .addOption(dimensionOption(DIMENSIONS.fileCache, '--file-cache', parseChoiceList('--file-cache', FILE_CACHES)))
    .addOption(new Option('--node <path>', 'the node binary of the node runtime (default: the node running coldstart)'));
}

type LeverOpts = OptsOf<ReturnType<typeof addProcessLevers<[], Empty, Empty>>> & { fileCache?: FileCache[]; node?: string };

export function leversOf(opts: LeverOpts): Partial<CellSpec> {
  return {
    ...(opts.runtime ? { runtimes: opts.runtime } : {}),
    ...(opts.build ? { builds: opts.build } : {}),
    ...(opts.compileCache ? { compileCaches: opts.compileCache } : {}),
    ...(opts.fileCache ? { fileCaches: opts.fileCache } : {}),
    ...(opts.versions ? { versions: opts.versions } : {}),
    ...(opts.node !== undefined ? { node: opts.node } : {}),
  };
}
