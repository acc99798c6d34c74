/**
 * `measure --levers` never waits on a dead child (issue 51). esbuild's service (`esbuild --service=…`, one
 * child of the runner for every bundle) killed while the levers bundle an express app: the run ends with every
 * bundle measured, and with what each variant ships (its last esbuild build). Before, esbuild never started
 * its service again and every later bundle failed "The service is no longer running" (exit 3).
 * And the levers on an express and a fastify app written here, outside the project: every variant ends
 * with its figure or a one-line reason, and the run ends.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { cellKey } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readMeta } from '../../metrics/store/meta-file.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { CLI, ROOT, runCli, tempDir, type CliResult } from '../support/helpers.ts';

const EXPRESS = `const express = require('express');
const app = express();
app.get('/', (req, res) => res.json({ ok: true }));
app.get('/users/:id', (req, res) => res.json({ id: req.params.id }));
app.listen(Number(process.env.PORT), '127.0.0.1');
`;

const FASTIFY = `const fastify = require('fastify')();
fastify.get('/', async () => ({ ok: true }));
fastify.get('/users/:id', async (req) => ({ id: req.params.id }));
fastify.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

/** An app folder outside the project (a temp folder) with the project's packages, and `file` written in it. */
function appIn(prefix: string, name: string, text: string): string {
  const dir = tempDir(prefix);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
}

/** The live children of `parent` whose command line is esbuild's service (`--service=`), from /proc. */
function serviceChildren(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== parent || state === 'Z') continue;
      if (
        readFileSync(`/proc/${entry}/cmdline`, 'utf8')
          .split('\0')
          .some((arg) => arg.startsWith('--service='))
      )
        pids.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

interface KilledRun extends CliResult {
  /** the pid of the service killed, if one was found */
  killed: number | undefined;
}

/**
 * The CLI run with `args`, its esbuild service killed (SIGKILL) as soon as it appears once the runner says it
 * bundles. A service seen before that line is tsx's (it compiles the tool's TypeScript on a cold cache), not the bundles'.
 */
function runKillingService(args: string[], timeoutMs: number): Promise<KilledRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let bundlingAt: number | undefined;
    let killed: number | undefined;
    const firstSeen = new Map<number, number>();
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (bundlingAt === undefined && stderr.includes('bundling the apps with esbuild')) bundlingAt = Date.now();
    });
    const poll = setInterval(() => {
      if (killed !== undefined || child.pid === undefined) return;
      const now = Date.now();
      for (const pid of serviceChildren(child.pid)) {
        if (!firstSeen.has(pid)) firstSeen.set(pid, now);
        // the line and the service's start come within a few ms: a service first seen well before the line is tsx's
        if (bundlingAt === undefined || firstSeen.get(pid)! < bundlingAt - 250) continue;
        try {
          process.kill(pid, 'SIGKILL');
          killed = pid;
        } catch {
          // ended on its own
        }
        return;
      }
    }, 10);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ status, stdout, stderr, killed });
    });
  });
}

const LEVER_ROWS = /^\| (?!variant |:--)/;

/** The rows of levers.md's answer table of `app`. */
function answerRows(levers: string, app: string): string[] {
  const section = levers.split(`### ${app} (your server)\n\n`)[1];
  assert.ok(section, levers);
  return section
    .split('\n\n')[0]!
    .split('\n')
    .filter((row) => LEVER_ROWS.test(row));
}

describe("measure --levers with esbuild's service killed mid-run", { timeout: 600_000 }, () => {
  let dir: string;
  let run: KilledRun;
  let samples: SampleRecord[];

  before(async () => {
    const app = appIn('coldstart-levers-service-', 'service-killed.js', EXPRESS);
    dir = path.join(tempDir(), 'run');
    const args = ['measure', '--entry', app, '--levers', 'build', '--no-snapshot', '--samples', '1', '--warmup', '0', '--out', dir];
    run = await runKillingService(args, 540_000);
    samples = readSamples(path.join(dir, 'samples.jsonl'));
  });

  it("found esbuild's service among the runner's children and killed it", () => {
    assert.ok(run.killed !== undefined, run.stderr);
    assert.ok(!existsSync(`/proc/${run.killed}`), 'the killed service is gone');
  });

  it('ends with exit 0 and every bundle measured', () => {
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /The service|\n\s+at /, run.stderr);
    for (const build of ['plain', 'bundle', 'bundle-min']) {
      const mine = samples.filter((s) => s.cell.build === build);
      assert.equal(mine.length, 1, build);
      assert.equal(mine[0]!.ok, true, `${build}: ${mine[0]!.error}`);
    }
  });

  it("records what the plain build ships: esbuild's last build of the run, on a fresh service", () => {
    const plain = samples.find((s) => s.cell.build === 'plain')!;
    const shipped = readMeta(dir)!.shipped!.code[cellKey(plain.cell)]!;
    assert.match(shipped.what, /^the app's 1 file and the \d+ package folders it loads$/);
    assert.ok(shipped.bytes! > 0);
  });
});

describe('measure --levers build,cache on an express and a fastify app written outside the project', { timeout: 600_000 }, () => {
  let dir: string;
  let run: CliResult;
  let samples: SampleRecord[];
  let levers: string;

  before(() => {
    const express = appIn('coldstart-levers-express-', 'express-api.js', EXPRESS);
    const fastify = appIn('coldstart-levers-fastify-', 'fastify-api.js', FASTIFY);
    dir = path.join(tempDir(), 'run');
    const args = ['measure', '--entry', express, '--entry', fastify, '--levers', 'build,cache', '--samples', '1', '--warmup', '0'];
    run = runCli([...args, '--out', dir], { timeoutMs: 540_000 });
    samples = readSamples(path.join(dir, 'samples.jsonl'));
    levers = readFileSync(path.join(dir, 'levers.md'), 'utf8');
  });

  it('ends (exit 0 or 3), with no stack trace', () => {
    assert.ok([0, 3].includes(run.status ?? -1), `exit ${run.status}: ${run.stderr}`);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  });

  it('every variant of each app (4 builds × 2 caches) has its figure or a one-line reason', () => {
    for (const app of ['express-api', 'fastify-api']) {
      const mine = samples.filter((s) => s.cell.framework === app);
      const variants = new Set(mine.map((s) => `${s.cell.build} ${s.cell.compileCache}`));
      assert.equal(variants.size, 8, `${app}: ${[...variants].join(', ')}`);
      for (const s of mine) {
        const reason = s.ok ? 'ok' : (s.unsupported ?? s.error ?? '');
        assert.ok(reason.length > 0 && !reason.includes('\n'), `${cellKey(s.cell)}: ${JSON.stringify(reason)}`);
      }
      // plain and bundle answer on every Node line the run has
      for (const build of ['plain', 'bundle'])
        assert.ok(
          mine.some((s) => s.cell.build === build && s.ok),
          `${app} ${build}`,
        );
    }
  });

  it("levers.md's answer: a row per variant of each app, ranked or not ranked with why", () => {
    for (const app of ['express-api', 'fastify-api']) {
      const rows = answerRows(levers, app);
      assert.equal(rows.length, 8, rows.join('\n'));
      for (const row of rows) assert.match(row, /\| [\d.]+ \(|not ranked: \w/, row);
      assert.equal(rows.filter((r) => r.includes('**fastest**')).length, 1, rows.join('\n'));
    }
  });
});
