/** Levers: what a cell runs on and how (runtime, build, compile cache, file cache, the node binary). */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { BUILDS, COMPILE_CACHES, FILE_CACHES, RUNTIME_NAMES, type FileCache } from '../../core/dimensions.ts';
import { DEFAULT_SPEC, type CellSpec } from '../../core/run-spec.ts';
import { parseChoiceList } from '../../core/parse.ts';
import { byDefault, type Empty, type OptsOf } from './common.ts';

const d = DEFAULT_SPEC.cells;

/** `--runtime`'s help: `whose` runtimes, and what it says of Lambda cells. */
export function runtimeHelp(whose: string, lambda = ''): string {
  return (
    `comma list of runtimes${whose}: ${RUNTIME_NAMES.join(', ')} ` +
    `(node = the node running coldstart, or --node; the others are installed on demand into .runtimes/${lambda})`
  );
}

/** `--runtime`, `--build`, `--compile-cache`: the levers of a file run as a process (run, hyperfine); `runtime` is --runtime's help. */
export function addProcessLevers<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  runtime: string,
) {
  return command
    .optionsGroup('Levers:')
    .addOption(
      new Option('--runtime <list>', runtime + byDefault(d.runtimes.join(','))).argParser(parseChoiceList('--runtime', RUNTIME_NAMES)),
    )
    .addOption(
      new Option(
        '--build <list>',
        `comma list of builds: ${BUILDS.join(', ')} (bundle = the file and all it requires in one file, by esbuild; ` +
          'bundle-min = the same, minified; snapshot = the bundle run once into a startup snapshot, node --build-snapshot: ' +
          "measure's server entries only)" +
          byDefault(d.builds.join(',')),
      ).argParser(parseChoiceList('--build', BUILDS)),
    )
    .addOption(
      new Option(
        '--compile-cache <list>',
        `comma list of ${COMPILE_CACHES.join(', ')}: Node's module compile cache (NODE_COMPILE_CACHE, Node >= 22.1); ` +
          'cold = a fresh empty cache per sample, warm = one filled by an unrecorded run first' +
          byDefault(d.compileCaches.join(',')),
      ).argParser(parseChoiceList('--compile-cache', COMPILE_CACHES)),
    );
}

export function addLeverGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return addProcessLevers(command, runtimeHelp(' of server cells', '; Lambda cells run on --lambda-runtime'))
    .addOption(
      new Option(
        '--file-cache <list>',
        `comma list of ${FILE_CACHES.join(', ')}: the OS file cache before each sample; ` +
          "cold = the files that sample's process reads are evicted first (default: warm for a server, cold for a Lambda cell)",
      ).argParser(parseChoiceList('--file-cache', FILE_CACHES)),
    )
    .addOption(new Option('--node <path>', 'the node binary of the node runtime (default: the node running coldstart)'));
}

type LeverOpts = OptsOf<ReturnType<typeof addProcessLevers<[], Empty, Empty>>> & { fileCache?: FileCache[]; node?: string };

export function leversOf(opts: LeverOpts): Partial<CellSpec> {
  return {
    ...(opts.runtime ? { runtimes: opts.runtime } : {}),
    ...(opts.build ? { builds: opts.build } : {}),
    ...(opts.compileCache ? { compileCaches: opts.compileCache } : {}),
    ...(opts.fileCache ? { fileCaches: opts.fileCache } : {}),
    ...(opts.node !== undefined ? { node: opts.node } : {}),
  };
}
