/**
 * docs/reference/cli.md from the program itself: every command's `--help` (usage, description,
 * arguments, options by help group) as Markdown, so the reference cannot drift from what the CLI
 * accepts. `npm run docs:cli` writes it; test/unit/cli-reference.test.ts fails when the committed
 * file differs from what this produces. Deterministic: no terminal width, no colours, and no path
 * of this machine (a default such as `--node`'s, the node running the tool, is named, not printed).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command, Help } from 'commander';
import { OPTION_RULES, type OptionRule } from '../core/run-spec.ts';
import { buildProgram } from '../cli/main.ts';
import { exitCodesMarkdown } from '../core/exit-codes.ts';
import { registryTable } from '../../generators/packages.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where the reference is committed, relative to the project root. */
export const CLI_REFERENCE = 'docs/reference/cli.md';

/** What a machine's own paths and sizes read as in the reference. Longest first: a path inside another is replaced whole. */
function machineWords(): [string, string][] {
  const words: [string, string][] = [
    [process.execPath, 'the node running coldstart'],
    [ROOT, 'the checkout'],
    [process.cwd(), 'the current folder'],
    [os.tmpdir(), 'the temporary folder'],
    [os.homedir(), 'your home folder'],
  ];
  return words.filter(([word]) => word.length > 1).sort((a, b) => b[0].length - a[0].length);
}

export function withoutMachinePaths(text: string): string {
  let out = text;
  for (const [word, name] of machineWords()) {
    out = out.split(JSON.stringify(word)).join(name).split(word).join(name);
  }
  return out;
}

/** A table cell: one line (the help's own wrapping is a terminal's), pipes and angle brackets escaped (`<dir>` is no HTML tag). */
function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '\\<');
}

function code(text: string): string {
  return `\`${text}\``;
}

/** A code span in a table: GitHub splits a row at every unescaped pipe, code spans included. */
function codeCell(text: string): string {
  return code(text.replace(/\|/g, '\\|'));
}

/** The npm script of each command, read from package.json (`npm run metrics` runs `run`). */
function npmScripts(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const scripts = new Map<string, string>();
  for (const [script, line] of Object.entries(pkg.scripts ?? {})) {
    const command = /metrics\/cli\/main\.ts (\S+)$/.exec(line)?.[1];
    if (command && !scripts.has(command)) scripts.set(command, script);
  }
  return scripts;
}

function subcommands(program: Command, helper: Help): Command[] {
  return helper.visibleCommands(program).filter((command) => command.name() !== 'help');
}

function optionTables(command: Command, helper: Help): string[] {
  const groups = new Map<string, string[]>();
  for (const option of helper.visibleOptions(command)) {
    const group = (option.helpGroupHeading ?? 'Options:').replace(/:$/, '');
    const rows = groups.get(group) ?? [];
    rows.push(`| ${codeCell(helper.optionTerm(option))} | ${cell(helper.optionDescription(option))} |`);
    groups.set(group, rows);
  }
  return [...groups].flatMap(([group, rows]) => [`**${group}**`, '', '| option | description |', '| --- | --- |', ...rows, '']);
}

function commandSection(command: Command, scripts: Map<string, string>): string[] {
  const helper = command.createHelp();
  helper.prepareContext({ helpWidth: 10_000, outputHasColors: false });
  const name = command.name();
  const script = scripts.get(name);
  const lines = [`## ${name}`, '', helper.commandDescription(command), ''];
  lines.push('```text', `coldstart ${helper.commandUsage(command).replace(/^coldstart /, '')}`, '```', '');
  if (script) lines.push(`From a checkout: ${code(`npm run ${script} -- …`)} or ${code(`npx coldstart ${name} …`)}.`, '');
  const args = helper.visibleArguments(command);
  if (args.length) {
    lines.push('| argument | description |', '| --- | --- |');
    for (const arg of args) lines.push(`| ${codeCell(helper.argumentTerm(arg))} | ${cell(helper.argumentDescription(arg))} |`);
    lines.push('');
  }
  lines.push(...optionTables(command, helper));
  return lines;
}

/** What a rule's options need; an option that another sets for itself (`overriddenBy`) needs that one left out. */
function ruleNeeds(rule: OptionRule): string {
  return rule.overriddenBy === undefined ? rule.without : `not with ${rule.overriddenBy}`;
}

/** The rules between options (core/run-spec.ts): what each option needs to have an effect. */
function rulesSection(): string[] {
  return [
    '## Rules between options',
    '',
    'An option that has no effect in the chosen selection is refused: one line on stderr, exit 2, nothing measured.',
    '',
    '| option | has an effect only with |',
    '| --- | --- |',
    ...OPTION_RULES.map((rule) => `| ${rule.flags.map(codeCell).join(', ')} | ${cell(ruleNeeds(rule))} |`),
    '',
  ];
}

/** The whole reference, as the committed file holds it. */
export function cliReference(): string {
  const program = buildProgram();
  const helper = program.createHelp();
  helper.prepareContext({ helpWidth: 10_000, outputHasColors: false });
  const scripts = npmScripts();
  const commands = subcommands(program, helper);
  const lines = [
    '# Command-line reference',
    '',
    "<!-- Generated by `npm run docs:cli` (metrics/tools/help-md.ts) from the program's own --help. Do not edit by hand:",
    '     test/unit/cli-reference.test.ts fails when this file differs from what the script writes. -->',
    '',
    `${helper.commandDescription(program)}. Every command prints this with ${code('--help')};`,
    `${code('npx coldstart <command>')} runs it from a checkout, and the npm scripts below run the same code.`,
    '',
    '| command | npm script | what it does |',
    '| --- | --- | --- |',
    ...commands.map((command) => {
      const name = command.name();
      const script = scripts.get(name);
      return `| [${name}](#${name}) | ${script ? code(`npm run ${script}`) : ''} | ${cell(helper.subcommandDescription(command))} |`;
    }),
    '',
    ...rulesSection(),
    ...commands.flatMap((command) => commandSection(command, scripts)),
  ];
  return withoutMachinePaths(`${lines.join('\n').replace(/\n+$/, '')}\n`);
}

/** The frameworks page, and the marker line before its registry table. */
export const FRAMEWORKS_PAGE = 'docs/guide/frameworks.md';
const REGISTRY_MARKER = '<!-- registry table: written from the generators';

/** `page` with its registry table (the table after REGISTRY_MARKER's line) replaced by `table`. */
export function withRegistryTable(page: string, table: string): string {
  const marker = page.indexOf(REGISTRY_MARKER);
  if (marker < 0) throw new Error(`${FRAMEWORKS_PAGE} has no registry-table marker`);
  const start = page.indexOf('\n\n', marker) + 2;
  const end = page.indexOf('\n\n', start);
  return `${page.slice(0, start)}${table}${page.slice(end)}`;
}

/** The README's marker line before its table of exit codes. */
export const EXIT_CODES_MARKER = '<!-- exit codes: written from metrics/core/exit-codes.ts';

/** `readme` with its table of exit codes (the table after EXIT_CODES_MARKER's line) written from the table in code. */
export function withExitCodes(readme: string): string {
  const marker = readme.indexOf(EXIT_CODES_MARKER);
  if (marker < 0) throw new Error('README.md has no exit-codes marker');
  const start = readme.indexOf('\n\n', marker) + 2;
  const end = readme.indexOf('\n\n', start);
  return `${readme.slice(0, start)}${exitCodesMarkdown()}${readme.slice(end)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = path.join(ROOT, CLI_REFERENCE);
  writeFileSync(file, cliReference());
  process.stdout.write(`wrote ${CLI_REFERENCE}\n`);
  const readme = path.join(ROOT, 'README.md');
  writeFileSync(readme, withExitCodes(readFileSync(readme, 'utf8')));
  process.stdout.write('wrote README.md (its exit codes)\n');
  const frameworks = path.join(ROOT, FRAMEWORKS_PAGE);
  writeFileSync(frameworks, withRegistryTable(readFileSync(frameworks, 'utf8'), await registryTable()));
  process.stdout.write(`wrote ${FRAMEWORKS_PAGE} (its registry table)\n`);
}
