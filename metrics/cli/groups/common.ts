/**
 * What the option groups share: the typed command they extend (@commander-js/extra-typings, so each
 * command's `.opts()` is inferred from its options, no cast), the help text of a default (the value
 * itself comes from DEFAULT_SPEC, applied once by runSpec), old spellings kept as hidden aliases,
 * and the flags a user typed, which the rules between options (core/run-spec.ts) are checked against.
 */
import type { Command as PlainCommand } from 'commander';
import { Option, type Command, type CommandUnknownOpts, type OptionValues } from '@commander-js/extra-typings';

/** No options yet: a group's opts type is read from its adder on a command of none (`typeof addX<[], Empty, Empty>`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type Empty = {};
/** The opts of a typed command. */
export type OptsOf<C> = C extends Command<unknown[], infer O, OptionValues> ? O : never;

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
