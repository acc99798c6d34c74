/**
 * The command line's usage, in-process (main() with its stderr captured, no process started): every
 * user mistake is one line and exit 2 and leaves the folder as it was, and each command's help lists
 * every option the program defines. The two mistakes found after the runtime answered run with
 * --debug-mode (the fake deps: nothing is started); a --node that does not run, commander's own exit
 * on an unknown option and the program's --help are test/e2e/cli.test.ts's.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { buildProgram } from '../../metrics/cli/main.ts';
import { fixture, tempDir as tmp } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';
import { assertUsageError as assertOneLineError } from '../support/usage-error.ts';

function assertUsageError(result: MainResult, message: RegExp): void {
  assertOneLineError(result.code, result.stderr, message);
}

describe('cli errors: one line, exit 2, no stack trace', () => {
  /** what, the arguments (made in before(): some need a folder), the message */
  const cases: { what: string; args: () => string[]; message: RegExp }[] = [
    {
      // the cells are chosen after the runtime answered: with the fake deps, no runtime is asked
      what: 'unknown framework',
      args: () => ['run', '--frameworks', 'nope', '--debug-mode'],
      message: /unknown framework "nope": choose from .*fastify.*node-http/,
    },
    { what: 'route count zero', args: () => ['run', '--routes', '0'], message: /--routes: "0" is not a route count/ },
    {
      what: 'route count too large',
      args: () => ['run', '--routes', '1,100001'],
      message: /"100001" is not a route count \(an integer from 1 to 100000\)/,
    },
    { what: 'route count not a number', args: () => ['generate', '--routes', 'ten'], message: /"ten" is not a route count/ },
    { what: 'an empty item in a list', args: () => ['run', '--routes', '1,,2'], message: /--routes: "1,,2" has an empty item/ },
    { what: 'samples zero', args: () => ['run', '--samples', '0'], message: /--samples: "0" is not an integer from 1/ },
    { what: 'samples not a number', args: () => ['run', '--samples', 'x'], message: /--samples: "x"/ },
    { what: 'bad timeout', args: () => ['run', '--timeout', '-3'], message: /--timeout: "-3" is not a positive number/ },
    {
      what: 'bad order',
      args: () => ['run', '--order', 'shuffled'],
      message: /--order: "shuffled" is not one of interleaved, sequential, random/,
    },
    { what: 'bad variant', args: () => ['run', '--variant', 'typed'], message: /--variant: "typed" is not one of validated, plain, all/ },
    { what: 'unknown command', args: () => ['fly'], message: /unknown command 'fly'/ },
    { what: 'report of a folder without samples', args: () => ['report', '/nonexistent-run'], message: /samples\.jsonl does not exist/ },
    {
      // a recursive mkdir loops forever under /proc: the folder must be made one level at a time
      what: '--out under /proc',
      args: () => ['run', '--frameworks', 'node-http', '--routes', '1', '--out', '/proc/coldstart-x'],
      message: /--out: \/proc\/coldstart-x is on proc, a kernel filesystem that holds no files/,
    },
    {
      // issue 20: lambda:package looped forever there; every command's --out goes through one check
      what: 'lambda:package --out under /proc',
      args: () => ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', '/proc/pkg'],
      message: /--out: \/proc\/pkg is on proc/,
    },
    {
      what: 'a meta.json that is JSON but not an object is named (issue 20: was an internal error)',
      args: () => {
        const dir = runFolder(readFileSync(fixture('golden-run/samples.jsonl'), 'utf8'));
        seeded.add(dir);
        writeFileSync(path.join(dir, 'meta.json'), '[1, 2]');
        return ['report', dir];
      },
      message: /meta\.json is not a run's meta\.json \(a JSON object expected, found an array\)/,
    },
    {
      what: '--out under a file',
      args: () => ['run', '--frameworks', 'node-http', '--routes', '1', '--out', '/etc/passwd/x'],
      message: /--out: \/etc\/passwd\/x is not a folder \(\/etc\/passwd is a file\)/,
    },
    {
      what: 'a broken samples.jsonl is named with its line',
      args: () => ['report', runFolder('{"not":"a sample"}\n{}\n')],
      message: /samples\.jsonl:1 is not a sample record/,
    },
    {
      what: 'a samples.jsonl without a sample is said, not reported as empty',
      args: () => ['report', runFolder('')],
      message: /samples\.jsonl holds no sample: nothing to report/,
    },
    {
      what: 'refuses a folder that already holds a run, so no finished sample is ever lost',
      args: () => ['run', '--frameworks', 'node-http', '--routes', '1', '--out', runFolder('')],
      message: /already holds a run/,
    },
    {
      what: 'unknown runtime',
      args: () => ['run', '--runtime', 'node,deno'],
      message: /--runtime: "deno" is not one of node, node22, node24, bun/,
    },
    { what: 'unknown build', args: () => ['run', '--build', 'plain,zip'], message: /--build: "zip" is not one of plain, bundle/ },
    {
      what: 'unknown compile cache',
      args: () => ['run', '--compile-cache', 'hot'],
      message: /--compile-cache: "hot" is not one of off, cold, warm/,
    },
    { what: 'a list of nothing', args: () => ['run', '--build', ','], message: /--build: "," has an empty item/ },
    {
      what: '--jobs 2 with timed cells',
      args: () => ['run', '-f', 'node-http', '-r', '1', '--jobs', '2', '--out', path.join(tmp(), 'x')],
      message: /--jobs does nothing without a counted cell .*timed cells run one at a time/,
    },
    {
      what: 'a folder in the way of meta.json is refused before the run starts (issue 20: was an internal error)',
      args: () => {
        const dir = tmp();
        mkdirSync(path.join(dir, 'meta.json'));
        return ['run', '--frameworks', 'node-http', '--routes', '1', '--out', dir, '--debug-mode'];
      },
      // the folder is not a run folder (its meta.json is no file): refused as the user's (issue 46), before the run starts
      message: /meta\.json is in the way \(not a file\)|is not empty \(meta\.json\) and not a run folder/,
    },
  ];
  /** folders given real samples: the check below looks for a report only */
  const seeded = new Set<string>();
  /** A folder with the given samples.jsonl. */
  function runFolder(samples: string): string {
    const dir = tmp();
    writeFileSync(path.join(dir, 'samples.jsonl'), samples);
    return dir;
  }
  const argsOf: string[][] = [];
  const results: MainResult[] = [];
  before(async () => {
    argsOf.push(...cases.map((c) => c.args()));
    for (const args of argsOf) results.push(await mainInProcess(args));
  });

  cases.forEach(({ what, message }, i) => {
    it(what, () => assertUsageError(results[i]!, message));
  });

  it('a refused or wrong run leaves the folder as it was: no report, samples.jsonl untouched', () => {
    for (const args of argsOf) {
      const out = args.includes('--out') ? args[args.indexOf('--out') + 1]! : args[0] === 'report' ? args[1]! : undefined;
      if (!out || !existsSync(out)) continue;
      assert.ok(!existsSync(path.join(out, 'summary.md')), `${args.join(' ')}: wrote a report`);
      const samples = path.join(out, 'samples.jsonl');
      if (existsSync(samples) && !seeded.has(out))
        assert.ok(!readFileSync(samples, 'utf8').includes('"phase"'), `${args.join(' ')}: wrote a sample`);
    }
  });
});

describe('--help documents every option the program defines', () => {
  // the options as the commands define them, not a list kept by hand
  const program = buildProgram();
  const commands = program.commands.map((command) => ({
    name: command.name(),
    // what `coldstart <name> --help` prints (the program's own --help exits 0 and prints the list of commands: test/e2e/cli.test.ts)
    help: command.helpInformation(),
    // hidden ones (old spellings, --debug-mode) excepted: the option an old spelling stands for says it
    flags: command.options
      .filter((option) => !option.hidden)
      .map((option) => option.long)
      .filter((flag): flag is string => Boolean(flag)),
  }));
  const mentions = (text: string, flag: string) => new RegExp(`${flag}(?![\\w-])`).test(text);

  it('the program defines the commands and their options', () => {
    assert.deepEqual(commands.map((c) => c.name).sort(), [
      'bisect',
      'clean',
      'compare',
      'gate',
      'generate',
      'hyperfine',
      'lambda-calibrate',
      'lambda-clean',
      'lambda-import',
      'lambda-package',
      'lambda-reference',
      'lambda-run',
      'measure',
      'merge',
      'report',
      'results-index',
      'run',
      'verify',
    ]);
    assert.ok(commands.find((c) => c.name === 'run')!.flags.length >= 18, 'run takes at least the 18 options it had');
  });

  it("the program's help lists every command", () => {
    const overview = program.helpInformation();
    for (const { name } of commands) assert.match(overview, new RegExp(`^\\s+${name}\\b`, 'm'), name);
  });

  for (const { name, help, flags } of commands) {
    it(`${name} --help lists ${flags.length ? flags.join(', ') : 'no option'}`, () => {
      const missing = flags.filter((flag) => !mentions(help, flag));
      assert.deepEqual(missing, [], `${name} --help does not mention ${missing.join(', ')}`);
    });
  }
  // the written reference, docs/reference/cli.md, is generated from the same program: test/unit/cli-reference.test.ts
});
