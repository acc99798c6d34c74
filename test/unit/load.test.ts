import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { cpuShares, parseLoadSummary, parseProcStat, parseSelfStat, summarizeLoad, type LoadReading } from '../../metrics/core/load.ts';
import { startLoadMonitor } from '../../metrics/measure/load-monitor.ts';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { parseMetaSpec } from '../../metrics/core/meta-spec.ts';
import { summaryMarkdown } from '../../metrics/report/markdown.ts';
import { tempDir } from '../support/in-process.ts';
import { cell, samplesOf, spread } from '../support/synthetic.ts';

/** A /proc/stat with the given aggregate cpu fields (user nice system idle iowait irq softirq steal guest guest_nice). */
function procStat(fields: number[]): string {
  const core = fields.map((f) => Math.floor(f / 2)).join(' ');
  return [`cpu  ${fields.join(' ')}`, `cpu0 ${core}`, 'intr 12345 0 0', 'ctxt 999', 'btime 1700000000', ''].join('\n');
}

/** A /proc/self/stat whose command name has a space and a parenthesis, with utime stime cutime cstime. */
function selfStat(utime: number, stime: number, cutime: number, cstime: number): string {
  const after = ['S', 1, 1, 1, 0, -1, 4194560, 100, 0, 0, 0, utime, stime, cutime, cstime, 20, 0, 1, 0, 50];
  return `4242 (node (x) y) ${after.join(' ')}\n`;
}

describe('load: parsing /proc/stat and /proc/self/stat', () => {
  it('reads the aggregate cpu line, not a per-core one; guest time is not added twice', () => {
    const times = parseProcStat(procStat([100, 5, 50, 800, 20, 3, 2, 10, 40, 0]))!;
    assert.deepEqual(times, { user: 100, nice: 5, system: 50, idle: 800, iowait: 20, irq: 3, softirq: 2, steal: 10 });
  });
  it('an old kernel without steal counts it as 0; garbage is undefined', () => {
    assert.equal(parseProcStat('cpu 1 2 3 4\n')!.steal, 0);
    assert.equal(parseProcStat('intr 1 2\n'), undefined);
    assert.equal(parseProcStat('cpu 1 x 3 4\n'), undefined);
    assert.equal(parseProcStat('cpu 1 2\n'), undefined);
  });
  it('sums utime, stime, cutime and cstime even when the command name holds spaces and parentheses', () => {
    assert.equal(parseSelfStat(selfStat(7, 3, 40, 10)), 60);
    assert.equal(parseSelfStat('4242 (node) S 1'), undefined);
  });
  it('shares between two readings: idle includes iowait; others is busy less our own ticks', () => {
    const a = parseProcStat(procStat([100, 0, 100, 700, 0, 0, 0, 0]))!;
    const b = parseProcStat(procStat([400, 0, 200, 1000, 100, 0, 0, 200]))!;
    // elapsed 1000 ticks: busy 400, idle 300 + iowait 100, steal 200; we used 100 of the busy ticks
    const shares = cpuShares(a, b, 100)!;
    assert.ok(Math.abs(shares.busy - 0.4) < 1e-12 && Math.abs(shares.idle - 0.4) < 1e-12 && Math.abs(shares.steal - 0.2) < 1e-12);
    assert.ok(Math.abs(shares.others! - 0.3) < 1e-12);
    assert.equal(cpuShares(b, b), undefined, 'no time passed');
  });
});

const reading = (at: number, load1: number, cpu?: number[], own?: number): LoadReading => ({
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, at)).toISOString(),
  load: [load1, load1 / 2, load1 / 4],
  ...(cpu ? { cpu: parseProcStat(procStat(cpu))! } : {}),
  ...(own !== undefined ? { ownTicks: own } : {}),
});

describe('load: the summary and the busy verdict', () => {
  it('a quiet run: the run itself is the only work; not busy, no warning', () => {
    // 2 cores, 5 s between readings = 1000 ticks each; we use about one core (500 ticks) of them
    const summary = summarizeLoad(
      [
        reading(0, 0.2, [0, 0, 0, 0, 0, 0, 0, 0], 0),
        reading(5, 1.0, [480, 0, 40, 480, 0, 0, 0, 0], 500),
        reading(10, 1.1, [960, 0, 80, 960, 0, 0, 0, 0], 1000),
      ],
      2,
    );
    assert.equal(summary.busy, false);
    assert.equal(summary.warning, undefined);
    assert.equal(summary.before.load1, 0.2);
    assert.equal(summary.after.load1, 1.1);
    assert.deepEqual(summary.during.load1, { min: 1.0, median: 1.05, max: 1.1 });
    assert.ok(summary.run!.others! < 0.05, JSON.stringify(summary.run));
    assert.equal(summary.during.readings, 2);
  });

  it('a busy loop beside the run: busy, with a one-line warning that says to compare CPU times', () => {
    const summary = summarizeLoad(
      [
        reading(0, 1.2, [0, 0, 0, 0, 0, 0, 0, 0], 0),
        reading(5, 2.4, [990, 0, 10, 0, 0, 0, 0, 0], 450),
        reading(10, 3.1, [1980, 0, 20, 0, 0, 0, 0, 0], 900),
      ],
      2,
    );
    assert.equal(summary.busy, true);
    const expected =
      'load 2.8 on 2 cores (other processes used 55 % of the CPU time) while samples ran: wall times are inflated; compare CPU times';
    assert.equal(summary.warning, expected);
    assert.equal(summary.warning.split('\n').length, 1);
  });

  it('a stealing hypervisor is busy too', () => {
    const summary = summarizeLoad([reading(0, 0.5, [0, 0, 0, 0, 0, 0, 0, 0], 0), reading(5, 0.9, [400, 0, 0, 400, 0, 0, 0, 200], 400)], 2);
    assert.equal(summary.busy, true);
    assert.match(summary.warning!, /the hypervisor stole 20 %/);
  });

  it('without /proc/stat: the load average decides, less the one task the run adds', () => {
    assert.equal(summarizeLoad([reading(0, 0.3), reading(5, 1.6)], 2).busy, false);
    const busy = summarizeLoad([reading(0, 2.5), reading(5, 3.1)], 2);
    assert.equal(busy.busy, true);
    assert.equal(busy.run, undefined);
    assert.match(busy.warning!, /^load 3\.1 on 2 cores/);
  });
});

describe('load: the monitor reads the files it is given', () => {
  it('before, during and after readings from a fake /proc/stat; the timer is stopped', () => {
    const dir = tempDir();
    const stat = path.join(dir, 'stat');
    const self = path.join(dir, 'self-stat');
    let load = 0.5;
    writeFileSync(stat, procStat([0, 0, 0, 0, 0, 0, 0, 0]));
    writeFileSync(self, selfStat(0, 0, 0, 0));
    const monitor = startLoadMonitor({ procStat: stat, selfStat: self, loadavg: () => [load, 0, 0], cores: 2, intervalMs: 60_000 });
    writeFileSync(stat, procStat([600, 0, 0, 400, 0, 0, 0, 0]));
    writeFileSync(self, selfStat(100, 0, 0, 0));
    load = 2.9;
    monitor.tick();
    writeFileSync(stat, procStat([1200, 0, 0, 800, 0, 0, 0, 0]));
    writeFileSync(self, selfStat(200, 0, 0, 0));
    load = 3.3;
    const summary = monitor.stop();
    assert.equal(summary.cores, 2);
    assert.equal(summary.before.load1, 0.5);
    assert.equal(summary.after.load1, 3.3);
    assert.equal(summary.during.load1.min, 2.9);
    assert.ok(Math.abs(summary.during.load1.median - 3.1) < 1e-12);
    assert.equal(summary.during.load1.max, 3.3);
    assert.ok(Math.abs(summary.run!.busy - 0.6) < 1e-12);
    assert.ok(Math.abs(summary.run!.others! - 0.5) < 1e-12);
    assert.deepEqual(summary.during.idle, { min: 0.4, median: 0.4, max: 0.4 });
    assert.equal(summary.busy, true);
    assert.equal(monitor.stop(), summary, 'a second stop returns the same summary');
  });

  it('no /proc/stat (another OS): load average only, no shares', () => {
    const missing = path.join(tempDir(), 'missing');
    const monitor = startLoadMonitor({ procStat: missing, selfStat: undefined, loadavg: () => [0.4, 0.3, 0.2], cores: 4 });
    const summary = monitor.stop();
    assert.equal(summary.run, undefined);
    assert.equal(summary.during.busy, undefined);
    assert.equal(summary.busy, false);
  });

  it('the real machine: a summary that survives JSON and parses back', () => {
    const summary = startLoadMonitor().stop();
    assert.ok(summary.cores >= 1);
    assert.deepEqual(parseLoadSummary(JSON.parse(JSON.stringify(summary))), JSON.parse(JSON.stringify(summary)));
    assert.equal(parseLoadSummary({ cores: 'two' }), undefined);
    assert.equal(parseLoadSummary(undefined), undefined);
  });
});

describe('load in summary.md', () => {
  const summaries = aggregate(samplesOf(cell('fastify', 10), spread(100, 5)));
  const meta = (load: unknown) =>
    ({
      tool: 'coldstart',
      toolVersion: '0',
      startedAt: '2026-01-01T00:00:00.000Z',
      version: 2,
      command: 'x',
      spec: parseMetaSpec({}),
      machine: { os: 'linux', cpu: 'test', cores: 2, memoryGB: 4 },
      runner: { node: 'v20' },
      runtimes: { node: 'v20' },
      frameworks: {},
      skipped: {},
      environment: { passed: [], dropped: [] },
      load,
    }) as RunMeta;

  it('a busy run: the warning leads the Warnings section and the environment block shows the load', () => {
    const busy = summarizeLoad([reading(0, 2.5), reading(5, 3.1)], 2);
    const md = summaryMarkdown(summaries, meta(busy));
    assert.match(md, /## Warnings\n\n- ⚠ load 3\.1 on 2 cores .*compare CPU times/);
    const line = '- **Machine load:** load average 2.50 before, 3.10–3.10 (median 3.10) while samples ran, on 2 cores — **busy**';
    assert.ok(md.includes(line), md);
  });

  it('a meta.json without load (older runs) or with a broken one: no line, no warning, no crash', () => {
    for (const load of [undefined, { cores: 2 }, 'busy']) {
      const md = summaryMarkdown(summaries, meta(load));
      assert.doesNotMatch(md, /Machine load|## Warnings/);
    }
  });
});
