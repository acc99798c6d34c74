/**
 * `measure` (npm run measure, npx coldstart measure): the cold start of the user's own server entries
 * and Lambda handlers, through the same run pipeline as `run` (session, sample runner, targets,
 * limits, levers, every output). Only where the cells come from differs: plan/apps.ts.
 */
import type { Command as PlainCommand } from 'commander';
import { Command, Option, type OptionValues } from '@commander-js/extra-typings';
import {
  DEFAULT_CONTENT_TYPE,
  DEFAULT_REQUEST,
  DEFAULT_STATUS,
  parseBodyPattern,
  parseInitExport,
  parseRequest,
  withoutEnvValues,
} from '../core/app.ts';
import { parseChoice, parseChoiceList, parseInteger } from '../core/parse.ts';
import { appsFolder, appsOf, checkAppVersions, ENTRY_TARGETS } from '../pipeline/apps.ts';
import { leverChoice, leverPreset } from '../pipeline/lever-preset.ts';
import { UsageError } from '../core/errors.ts';
import { addTypedCommand, byDefault, dimensionOption } from './groups/common.ts';
import { DIMENSIONS } from '../core/dimensions.ts';
import { measureOption } from './groups/selection.ts';
import { addRunGroups, checkedSpec, depsOf, executeRun, specOfGroups, type ProgramHooks } from './run.ts';
import { commandLine } from './shared.ts';
import { targetKind } from '../core/kinds.ts';

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The apps: entries and handlers, and how each is asked for its first answer. */
export function addAppsGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command
    .optionsGroup('Apps:')
    .addOption(
      new Option('--entry <file>', 'a server entry and its arguments ("dist/server.js --flag"); repeat for several').argParser(collect),
    )
    .addOption(
      dimensionOption(DIMENSIONS.target, '--target', parseChoiceList('--target', ENTRY_TARGETS), { what: 'app', lambda: true }, 'server'),
    )
    .addOption(
      new Option('--handler <file.export>', 'a Lambda handler module and its export (src/index.handler); repeat for several').argParser(
        collect,
      ),
    )
    .addOption(new Option('--name <list>', 'names for the apps in the order given (entries, then handlers); default: from the file names'))
    .addOption(
      new Option(
        '--request <request>',
        'the first request to a server: "METHOD /path"' + byDefault(`${DEFAULT_REQUEST.method} ${DEFAULT_REQUEST.path}`),
      ).argParser(parseRequest),
    )
    .addOption(new Option('--body <file>', 'the body of that request, read from FILE (at most 6 MB)'))
    .addOption(new Option('--content-type <type>', 'the content type of --body' + byDefault(DEFAULT_CONTENT_TYPE)))
    .addOption(
      new Option('--expect-status <n>', 'the status the first answer must have' + byDefault(DEFAULT_STATUS)).argParser(
        parseInteger('--expect-status', 100, 599),
      ),
    )
    .addOption(
      new Option(
        '--expect-body <regex>',
        "a regular expression the first answer's body must match (RE2 syntax, linear time: no lookaround, no backreference)",
      ).argParser(parseBodyPattern),
    )
    .addOption(
      new Option(
        '--init-export <name>',
        "the export of each handler's module that initialises it (fastify's ready(), hapi's initialize()), callable more than " +
          "once and returning the same promise: the handler's eager cell (--init eager) awaits it in INIT, its lazy cell " +
          'runs the handler as written',
      ).argParser(parseInitExport),
    )
    .addOption(
      new Option('--event <file>', 'the JSON event a handler is invoked with (API Gateway v1/v2, Function URL, or any JSON; at most 6 MB)'),
    )
    .addOption(
      new Option(
        '--port <port>',
        'auto: the app gets a free port in PORT and must listen on it; 0: PORT=0, any port counts' + byDefault('auto'),
      ).argParser(parseChoice('--port', ['auto', '0'] as const)),
    )
    .addOption(
      new Option(
        '--cwd <dir>',
        'the folder the apps run in (default: where you ran the command); a handler inside it runs in it, its Lambda task root',
      ),
    )
    .addOption(
      new Option('--env <name=value>', 'a variable the apps need (they get a clean environment); repeat for several').argParser(collect),
    )
    .addOption(measureOption())
    .addOption(
      new Option(
        '--levers [list]',
        'try the levers named (build, cache, runtime; comma-separated), or every one that applies without a list: ' +
          'builds plain, bundle, bundle-min, snapshot; compile cache off, warm; ' +
          'node and each Node line installed in .runtimes/ (not with --build, --compile-cache, --runtime); ' +
          "a handler's init mode (--init eager,lazy) with --init-export, else as it is written: see the note it prints",
      ),
    )
    .addOption(new Option('--no-snapshot', 'with --levers: leave the startup snapshot build out'));
}

/**
 * Why `measure --levers` does not try a handler's other init mode without --init-export (issue 41):
 * coldstart moves a handler's initialisation into INIT only through the export that does it.
 */
export const HANDLER_INIT_NOTE =
  "the init mode is not tried on a handler without --init-export: name the export of the handler's module that " +
  "initialises it (fastify's ready(), hapi's initialize(); callable more than once) and its eager cell awaits it in INIT, " +
  'beside the handler as written';

export function registerMeasureCommand(program: PlainCommand, hooks: ProgramHooks = {}): void {
  const measure = new Command('measure').description(
    'measure the cold start of your own server entry (--entry) or Lambda handler (--handler), and where it goes by package ' +
      '(--measure, on run and measure alike, is how: time or instructions)',
  );
  const command = addRunGroups(addAppsGroup(measure), 'app').action(async (opts, self) => {
    // where the user ran the command: runCli started there (npm's INIT_CWD for an npm script)
    const base = process.cwd();
    const apps = appsOf(opts, base);
    const line = commandLine(withoutEnvValues([...(hooks.argv ?? process.argv)]), 'measure');
    if (!opts.snapshot && !opts.levers) throw new UsageError('--no-snapshot goes with --levers (the builds it tries)');
    const levers = opts.levers ? leverPreset(undefined, leverChoice(opts.levers, opts.snapshot)) : {};
    const cells = { ...(opts.measure ? { measures: opts.measure } : {}), ...levers };
    if (opts.levers && apps.some((app) => targetKind(app.kind).handler && app.initExport === undefined))
      process.stderr.write(`coldstart: --levers: ${HANDLER_INIT_NOTE}\n`);
    const spec = checkedSpec(specOfGroups(opts, line, { kind: 'apps', apps, cwd: appsFolder(opts, base) }, cells), self);
    // a package none of the apps depends on is refused before the run folder is made
    checkAppVersions(apps, spec.cells.versions);
    await (hooks.execute ?? executeRun)(spec, depsOf(opts.debugMode));
  });
  addTypedCommand(program, command);
}
