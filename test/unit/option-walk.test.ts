/**
 * Every option of `run` and `measure`, walked against every kind of selection, in-process (the
 * program parses and checks its spec, nothing runs): each option either changes the spec the
 * command would run or is refused with one line (exit 2 in the CLI). An option that is silently
 * ignored fails the walk. Then the examples of issue 25, each through main(): exit 2 and one line.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { CommanderError, type Option } from 'commander';
import { SHIPPED_REFERENCE_FILE } from '../../metrics/calibration/lambda-reference.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import type { RunSpec } from '../../metrics/core/run-spec.ts';
import { buildProgram, main, specOfArgv } from '../../metrics/cli/main.ts';
import { FIXTURES } from '../support/in-process.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-walk-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
};
const app = file('app.js', "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n");
const other = file('other.js', "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n");
mkdirSync(path.join(dir, 'src'));
file('src/h.js', 'exports.handler = async () => ({ statusCode: 200, body: "ok" });\n');
const handler = path.join(dir, 'src', 'h.handler');
const event = file('event.json', '{"rawPath": "/"}');
const event2 = file('event2.json', '{"rawPath": "/other"}');
const body = file('body.json', '{"a": 1}');

/** A valid value of each option that differs from its default and from every selection's base (none: a flag without value). */
const VALUES: Readonly<Record<string, readonly string[]>> = {
  '--frameworks': ['fastify'],
  '--routes': ['5'],
  '--variant': ['plain'],
  '--shape': ['params'],
  '--schema': ['user'],
  '--samples': ['7'],
  '--warmup': ['3'],
  '--timeout': ['30'],
  '--node': ['/opt/other-node/bin/node'],
  '--precision': ['5%'],
  '--min-samples': ['3'],
  '--max-samples': ['9'],
  '--order': ['random'],
  '--seed': ['another'],
  '--first-hits': ['3'],
  '--target': ['server,lambda'],
  '--lambda-memory': ['512'],
  '--lambda-runtime': ['nodejs22.x'],
  '--calibration': [SHIPPED_REFERENCE_FILE],
  '--lambda-bootstrap': ['probe'],
  '--init': ['lazy'],
  '--init-export': ['init'],
  '--file-cache': ['cold'],
  '--init-cpus': ['1'],
  '--cpu-period': ['20'],
  '--lambda-reference': ['off'],
  '--no-lambda-reference': [],
  '--runtime': ['bun'],
  '--build': ['bundle'],
  '--compile-cache': ['warm'],
  '--versions': ['fastify@4.28.1,5.6.1', 'express@4.21.2'],
  '--memory': ['2048'],
  '--cost-memory': ['2048'],
  '--arch': ['arm64'],
  '--price': ['0.00002'],
  '--price-file': [path.join(FIXTURES, 'web-functions', 'prices.json')],
  '--web-cpu-price': ['0.00003'],
  '--web-gb-price': ['0.000002'],
  '--web-request-price': ['0.0000004'],
  '--lambda-compute': ['managed-instances'],
  '--budget': ['500ms'],
  '--attribute': [],
  '--measure': ['time,instructions'],
  '--count-samples': ['2'],
  '--jobs': ['2'],
  '--shard': ['1/2'],
  '--out': [path.join(dir, 'out')],
  '--allow-failures': [],
  '--force-publish': [],
  '--export-json': [path.join(dir, 'export.json')],
  '--export-metric': ['listen'],
  '--entry': [other],
  '--handler': [handler],
  '--name': ['mine'],
  '--request': ['POST /orders'],
  '--body': [body],
  '--content-type': ['text/plain'],
  '--expect-status': ['201'],
  '--expect-body': ['ok'],
  '--event': [event2],
  '--port': ['0'],
  // the folder above the handler's: its task root
  '--cwd': [dir],
  '--env': ['SHOP=corner'],
  '--levers': [],
  '--no-snapshot': [],
  '--cache-sim': [],
  '--atomic-gc': [],
  '--count-packages': [],
};

/** The kinds of selection, each a base command line of its command. */
const KINDS: readonly { name: string; command: 'run' | 'measure'; base: readonly string[]; values?: Record<string, string[]> }[] = [
  { name: 'generated, servers only', command: 'run', base: ['run'] },
  { name: 'generated, Lambda only', command: 'run', base: ['run', '--target', 'lambda'] },
  {
    name: 'generated, servers and Lambda',
    command: 'run',
    base: ['run', '--target', 'server,lambda'],
    values: { '--target': ['lambda'] },
  },
  { name: 'generated, counted', command: 'run', base: ['run', '--measure', 'instructions'] },
  { name: 'measure --entry', command: 'measure', base: ['measure', '--entry', app] },
  { name: 'measure --handler', command: 'measure', base: ['measure', '--handler', handler, '--event', event] },
  { name: 'measure --entry, counted', command: 'measure', base: ['measure', '--entry', app, '--measure', 'instructions'] },
];

type Outcome = { spec: RunSpec } | { refused: string };

async function outcome(args: readonly string[], specified = true): Promise<Outcome | { parsed: true }> {
  try {
    const spec = await specOfArgv(args);
    if (!specified) return { parsed: true };
    assert.ok(spec, `${args.join(' ')}: no spec`);
    return { spec };
  } catch (error) {
    if (error instanceof UsageError || error instanceof CommanderError) return { refused: error.message };
    throw error;
  }
}

/** The spec without the command line it records (which always differs). */
const withoutCommand = (spec: RunSpec) => ({ ...spec, command: '' });

function walked(option: Option): boolean {
  return !option.hidden && option.long !== '--help' && option.long !== undefined;
}

describe('every option of run and measure has an effect or is refused, in every kind of selection', () => {
  const program = buildProgram();
  for (const kind of KINDS) {
    const command = program.commands.find((c) => c.name() === kind.command)!;
    describe(kind.name, () => {
      let base: RunSpec;
      it('the base selection parses', async () => {
        const result = await outcome(kind.base);
        assert.ok('spec' in result, 'refused' in result ? result.refused : 'parsed only');
        base = result.spec;
      });
      for (const option of command.options.filter(walked)) {
        const flag = option.long!;
        it(flag, async () => {
          const value = kind.values?.[flag] ?? VALUES[flag];
          assert.ok(value, `${flag}: give it a walk value in VALUES`);
          const args = [...kind.base, flag, ...value];
          const result = await outcome(args);
          if ('refused' in result) {
            assert.doesNotMatch(result.refused, /\n/, 'one line');
            assert.ok(result.refused.length > 10, result.refused);
            return;
          }
          assert.ok(
            'spec' in result && !isDeepStrictEqual(withoutCommand(result.spec), withoutCommand(base)),
            `${args.join(' ')}: no effect, not refused`,
          );
        });
      }
    });
  }
});

/** The other commands, parsed only (their actions skipped): each option with a valid value parses, or is refused with one line. */
const OTHERS: Readonly<Record<string, { args: readonly string[]; values?: Record<string, readonly string[]> }>> = {
  generate: { args: [] },
  report: { args: [dir], values: { '--export-json': [path.join(dir, 'report-export.json')] } },
  hyperfine: { args: [] },
  compare: { args: [dir, dir], values: { '--out': [path.join(dir, 'compare.md')] } },
  verify: { args: [dir], values: { '--metric': ['cpu.firstResponse'], '--margin': ['20%'] } },
  merge: { args: [dir] },
  'lambda-package': { args: [], values: { '--memory': ['512'] } },
  'lambda-import': { args: [event] },
  'lambda-reference': { args: [], values: { '--lambda-runtime': ['nodejs22.x'], '--out': [path.join(dir, 'reference.json')] } },
  clean: { args: [] },
  'results-index': { args: [dir] },
  'lambda-run': {
    args: [dir, '--region', 'eu-west-1'],
    values: {
      '--region': ['us-east-1'],
      '--role': ['arn:aws:iam::123456789012:role/r'],
      '--create-role': [],
      '--parallel': ['2'],
      '--ready-timeout': ['60'],
      '--logs-wait': ['0'],
      '--role-wait': ['30'],
      '--keep': [],
      '--dry-run': [],
      '--run-id': ['abc123'],
    },
  },
  'lambda-calibrate': { args: [dir, dir, '--out', path.join(dir, 'calibration.json')], values: { '--out': [path.join(dir, 'c.json')] } },
  'lambda-clean': {
    args: ['--region', 'eu-west-1'],
    values: { '--region': ['us-east-1'], '--run': ['abc123'], '--roles': [], '--dry-run': [] },
  },
  gate: {
    args: ['--base', 'HEAD~1', '--entry', 'server.js'],
    values: {
      '--base': ['main'],
      '--entry': ['other.js'],
      '--handler': ['handler.handler'],
      '--name': ['app'],
      '--rounds': ['3'],
      '--threshold': ['5%'],
      '--out': [path.join(dir, 'gate-out')],
      '--work': [dir],
      '--measure-arg': ['--samples=3'],
      '--frameworks': ['fastify'],
      '--routes': ['1'],
      '--framework-from': ['.'],
    },
  },
  bisect: {
    args: ['--package', 'fastify', '--range', '4.0.0..5.6.1'],
    values: { '--package': ['express'], '--range': ['4.0.0..4.28.1'], '--routes': ['100'], '--target': ['lambda'], '--from': [dir] },
  },
};
const OTHER_VALUES: Readonly<Record<string, readonly string[]>> = {
  '--phases-at': ['100'],
  '--fail-above': ['1.1'],
  '--metric': ['instructions'],
  '--threshold': ['1%'],
  '--function': ['my-function'],
  '--lambda-perf': [event],
  '--days': ['7'],
  '--reports': [event],
  '--architecture': ['arm64'],
  '--partial': [],
  '--pre': [],
  '--step': ['2'],
  '--yes': [],
  '--quick': [],
  '--framework': ['fastify'],
  '--calibration': [path.join(dir, 'calibration.json')],
  '--git': ['HEAD~2..HEAD'],
  '--estimate': [dir],
};

describe('every option of the other commands parses or is refused with one line', () => {
  const program = buildProgram();
  for (const command of program.commands.filter((c) => c.name() !== 'run' && c.name() !== 'measure')) {
    const other = OTHERS[command.name()];
    it(`${command.name()} is walked`, () => assert.ok(other, `${command.name()}: give it base arguments in OTHERS`));
    if (!other) continue;
    for (const option of command.options.filter(walked)) {
      const flag = option.long!;
      it(`${command.name()} ${flag}`, async () => {
        const value = other.values?.[flag] ?? OTHER_VALUES[flag] ?? VALUES[flag];
        assert.ok(value, `${flag}: give it a walk value`);
        const result = await outcome([command.name(), ...other.args, flag, ...value], false);
        if ('refused' in result) assert.doesNotMatch(result.refused, /\n/, 'one line');
      });
    }
  }
});

/** main() on a command line: its exit code and what it wrote on stderr (nothing runs: every case is refused). */
async function cli(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  };
  try {
    const code = await main(['node', 'coldstart', ...args]);
    return { code, stderr };
  } finally {
    process.stderr.write = write;
  }
}

describe('the examples of issue 25: exit 2 and one line that says why', () => {
  const examples: { name: string; args: string[]; says: RegExp }[] = [
    { name: '--event with --entry', args: ['measure', '--entry', app, '--event', event], says: /--event does nothing without --handler/ },
    {
      name: '--request with --handler',
      args: ['measure', '--handler', handler, '--event', event, '--request', 'POST /x'],
      says: /--request does nothing without --entry/,
    },
    {
      name: '--port with --handler',
      args: ['measure', '--handler', handler, '--event', event, '--port', '0'],
      says: /--port does nothing without --entry/,
    },
    { name: '--lambda-runtime with no Lambda cell', args: ['run', '--lambda-runtime', 'nodejs22.x'], says: /without a Lambda cell/ },
    { name: '--lambda-bootstrap with no Lambda cell', args: ['run', '--lambda-bootstrap', 'probe'], says: /without a Lambda cell/ },
    { name: '--lambda-reference off with no Lambda cell', args: ['run', '--lambda-reference', 'off'], says: /without a Lambda cell/ },
    {
      name: '--lambda-runtime with measure --entry',
      args: ['measure', '--entry', app, '--lambda-runtime', 'nodejs22.x'],
      says: /without a Lambda cell/,
    },
    {
      name: '--count-samples without counted cells',
      args: ['run', '--count-samples', '2'],
      says: /--count-samples does nothing without a counted cell/,
    },
    {
      name: 'measure --seed without --order random',
      args: ['measure', '--entry', app, '--seed', 'x'],
      says: /--seed does nothing without --order random/,
    },
    {
      name: '--lambda-runtime node --lambda-bootstrap ric',
      args: ['run', '--target', 'lambda', '--lambda-runtime', 'node', '--lambda-bootstrap', 'ric'],
      says: /every cell would be unsupported.*Runtime Interface Client/,
    },
    {
      name: 'a selection that leaves no cell: counted cells at a memory size only',
      args: ['run', '--measure', 'instructions', '--lambda-memory', '512'],
      says: /every cell would be unsupported.*memory size/,
    },
    {
      name: 'a selection that leaves no cell: a counted handler on the Runtime Interface Client',
      args: ['measure', '--handler', handler, '--event', event, '--measure', 'instructions'],
      says: /every cell would be unsupported.*probe/,
    },
  ];
  // issue 29: --levers sets every lever list, so an explicit one is refused rather than overridden
  examples.push(
    {
      name: '--levers with --build',
      args: ['measure', '--entry', app, '--levers', '--build', 'bundle'],
      says: /--build cannot be given with --levers/,
    },
    {
      name: '--levers with --compile-cache and --runtime',
      args: ['measure', '--entry', app, '--runtime', 'node', '--levers', '--compile-cache', 'warm'],
      says: /--compile-cache, --runtime cannot be given with --levers/,
    },
  );
  // not an example of the issue, but the same promise: the typed commands keep the program's error handling
  examples.push(
    { name: 'an unknown option of run', args: ['run', '--sample', '3'], says: /unknown option '--sample'/ },
    { name: 'an unknown option of measure', args: ['measure', '--entry', app, '--sample', '3'], says: /unknown option '--sample'/ },
  );
  for (const example of examples) {
    it(example.name, async () => {
      const { code, stderr } = await cli(example.args);
      assert.equal(code, 2, stderr);
      assert.match(stderr, /^coldstart: [^\n]+\n$/);
      assert.match(stderr, example.says);
    });
  }
});

describe('--help groups the options of run and measure', () => {
  const program = buildProgram();
  const headings = (name: string) =>
    program.commands
      .find((c) => c.name() === name)!
      .helpInformation()
      .split('\n')
      .filter((line) => /^[A-Z][\w ]*:$/.test(line));
  it('run: Selection, Sampling, Levers, Lambda, Cost, Output', () => {
    assert.deepEqual(headings('run'), ['Selection:', 'Sampling:', 'Levers:', 'Lambda:', 'Cost:', 'Output:', 'Options:']);
  });
  it('measure: its apps first, then the same groups', () => {
    assert.deepEqual(headings('measure'), ['Apps:', 'Selection:', 'Sampling:', 'Levers:', 'Lambda:', 'Cost:', 'Output:', 'Options:']);
  });
  it('an old spelling is said in the help of the option it stands for, and hidden itself', () => {
    const help = program.commands.find((c) => c.name() === 'run')!.helpInformation();
    assert.match(help, /--cost-memory <MB>[^]*the old spelling --memory still works/);
    assert.match(help, /--no-lambda-reference[^]*--lambda-reference off still works/);
    assert.doesNotMatch(help, /^\s+--memory /m);
    assert.doesNotMatch(help, /--debug-mode/);
  });
});
