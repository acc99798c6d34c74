/**
 * What the option groups share: the typed command they extend (@commander-js/extra-typings, so each
 * command's `.opts()` is inferred from its options, no cast), the help text of a default (the value
 * itself comes from DEFAULT_SPEC, applied once by runSpec), old spellings kept as hidden aliases,
 * and the flags a user typed, which the rules between options (core/run-spec.ts) are checked against.
 */
import type { Command as PlainCommand } from 'commander';
import { Option, type Command, type CommandUnknownOpts, type OptionValues } from '@commander-js/extra-typings';
import type { Dimension, DimensionFlag, FlagContext, FlagGroup, TargetName } from '../../core/dimensions.ts';

/** No options yet: a group's opts type is read from its adder on a command of none (`typeof addX<[], Empty, Empty>`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type Empty = {};
/** The opts of a typed command. */
export type OptsOf<C> = C extends Command<unknown[], infer O, OptionValues> ? O : never;
/** An options type as one flat object type: a nested chain of a group's options, evaluated once. */
export type Flat<T> = { [K in keyof T]: T[K] };

/** " (default: TEXT)": the default as --help says it; the command applies none (runSpec does). */
export function byDefault(text: string | number): string {
  return ` (default: ${text})`;
}

/** Hidden old spellings: the long flag of the option each stands for. */
const ALIAS_OF = new WeakMap<object, string>();

/** A hidden option standing for `canonical` (`--memory` for `--cost-memory`); the canonical option's help says it. */
export function aliasOf<O extends Option>(option: O, canonical: `--${string}`): O {
  ALIAS_OF.set(option, canonical);
  return option.hideHelp();
}

/**
 * A hidden old spelling (`--architecture <arch>` of `--arch`, `--runtime` of `--lambda-runtime` on the
 * Lambda commands): its value read by the same `parse` under its own name, refused beside the flag it
 * stands for, whose help says it.
 */
export function oldSpelling<Usage extends string, T>(usage: Usage, canonical: `--${string}`, parse: (option: string, text: string) => T) {
  const flag = usage.split(' ')[0] ?? usage;
  const key = canonical.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  return aliasOf(
    new Option(usage).conflicts(key).argParser((text: string) => parse(flag, text)),
    canonical,
  );
}

/** What givenFlags reads of a command, typed or not. */
interface Parsed {
  readonly options: readonly { long?: string; negate: boolean; attributeName(): string }[];
  getOptionValueSource(key: string): string | undefined;
  getOptionValue(key: string): unknown;
}

/**
 * The long flags of the options the user typed (value source `cli`), an old spelling as the option
 * it stands for. Of two options sharing a value (`--no-x` and `--x <on|off>`), the one whose kind of
 * value it holds (false: the negated one).
 */
export function givenFlags(command: Parsed): Set<string> {
  const given = new Set<string>();
  for (const option of command.options) {
    const key = option.attributeName();
    if (command.getOptionValueSource(key) !== 'cli' || !option.long) continue;
    const shared = command.options.filter((o) => o.attributeName() === key).length > 1;
    if (shared && option.negate !== (command.getOptionValue(key) === false)) continue;
    given.add(ALIAS_OF.get(option) ?? option.long);
  }
  return given;
}

/**
 * A typed command under the program. The program and the commands not yet typed use commander's own
 * declarations, the typed ones extra-typings' declarations of the same class: one object at run time.
 */
export function addTypedCommand(program: PlainCommand, command: CommandUnknownOpts): void {
  const plain = command as unknown as PlainCommand;
  // as program.command() does: errors thrown (exitOverride), not printed, so main() makes them one line and exit 2
  plain.copyInheritedSettings(program);
  program.addCommand(plain);
}

/** A dimension flag's usage as a type, short flag, long flag and argument (extra-typings infers the option's name and value from it). */
type UsageOf<F extends DimensionFlag> = `${F extends { short: infer S extends string } ? `${S}, ` : ''}${F['flag']} ${F['arg']}`;
type FlagNamed<R extends DimensionRow, N extends string> = Extract<R['flags'][number], { flag: N }>;
/** What a flag needs of its row: the flags, and the CLI default --help shows. */
type DimensionRow = Pick<Dimension<string | number>, 'flags' | 'cli'>;

const HEADINGS: Readonly<Record<FlagGroup, string>> = {
  selection: 'Selection:',
  levers: 'Levers:',
  lambda: 'Lambda:',
  cost: 'Cost:',
  sampling: 'Sampling:',
};

/** The default as --help says it: the flag's own text, else the row's `cli` (for the flag's target, or per target). */
export function defaultTextOf(row: DimensionRow, flag: DimensionFlag): string {
  if (flag.defaultText !== undefined) return flag.defaultText;
  const cli = row.cli;
  if (cli === undefined) return '';
  if (Array.isArray(cli)) return cli.join(',');
  const byTarget = cli as Readonly<Record<TargetName, readonly (string | number)[]>>;
  if (flag.target) return byTarget[flag.target].join(',');
  return `${byTarget.server.join(',')} for a server, ${byTarget.lambda.join(',')} for a Lambda cell`;
}

/** A dimension flag's --help: its row's text on this command, and the default (none shown for `''`). */
export function flagHelp(row: DimensionRow, flag: DimensionFlag, on: FlagContext, defaultText?: string): string {
  const help = typeof flag.help === 'function' ? flag.help(on) : flag.help;
  const text = defaultText ?? defaultTextOf(row, flag);
  return text === '' ? help : help + byDefault(text);
}

/** The flag `name` of a row (a row may have several: --runtime and --lambda-runtime). */
function flagOf<R extends DimensionRow, N extends R['flags'][number]['flag']>(row: R, name: N): FlagNamed<R, N> {
  const flag = row.flags.find((f) => f.flag === name);
  if (!flag) throw new Error(`no flag ${name} in the dimension table`);
  return flag as FlagNamed<R, N>;
}

/**
 * The option of a dimension's flag, declared by its row in core/dimensions.ts (flag, short, argument,
 * help, help group, default text); `parse` turns the text given into the value. `on`: the command's
 * word for a cell and whether it has Lambda cells (some flags' help says it). `defaultText`: a command
 * whose default is not the run's (lambda:package's --init: lazy, the packages as before the lever).
 */
export function dimensionOption<R extends DimensionRow, N extends R['flags'][number]['flag'], T>(
  row: R,
  name: N,
  parse: (text: string) => T,
  on: FlagContext = { what: 'cell', lambda: true },
  defaultText?: string,
) {
  const flag = flagOf(row, name);
  const usage = `${flag.short ? `${flag.short}, ` : ''}${flag.flag} ${flag.arg}` as UsageOf<FlagNamed<R, N>>;
  return new Option(usage, flagHelp(row, flag, on, defaultText)).argParser(parse).helpGroup(HEADINGS[flag.group]);
}

/** The hidden old spelling of a dimension's flag (its row's `alias`: `--memory` of `--cost-memory`). */
export function dimensionAlias<R extends DimensionRow, N extends R['flags'][number]['flag'], T>(
  row: R,
  name: N,
  parse: (flag: string) => (text: string) => T,
) {
  const flag = flagOf(row, name);
  const alias = flag.alias as FlagNamed<R, N>['alias'] & string;
  const usage = `${alias} ${flag.arg}` as `${typeof alias} ${FlagNamed<R, N>['arg']}`;
  return aliasOf(new Option(usage, `the old spelling of ${flag.flag}`).argParser(parse(alias)), flag.flag);
}
