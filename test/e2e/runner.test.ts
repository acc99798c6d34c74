import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { parseAfterLine, parseReadyLine } from '../../metrics/measure/targets/server.ts';
import { oneLine, telling } from '../../metrics/measure/text.ts';
import { echoedEnv, fixture, processesWith, runFile, waitFor } from '../support/helpers.ts';

describe('runner: a server that misbehaves fails its sample with a reason', () => {
  it('a crash before ready: fails with the exit code and the stderr tail', async () => {
    const sample = await runFile(fixture('crash.js'));
    assert.equal(sample.ok, false);
    assert.match(sample.error!, /exited with code 1 before it was ready: Error: fixture crashed on purpose/);
    assert.match(sample.stderrTail!, /fixture crashed on purpose/);
    assert.equal(sample.marks, undefined);
  });

  it('a hang: fails at the timeout and the process is killed', async () => {
    const marker = `coldstart-test-hang-${process.pid}`;
    const sample = await runFile(fixture('hang.js'), { timeoutMs: 700, args: [marker] });
    assert.equal(sample.ok, false);
    assert.match(sample.error!, /no ready line within \d+ ms/);
    assert.deepEqual(processesWith(marker), []);
  });

  it('a garbage protocol line: fails as malformed, banners before it are tolerated', async () => {
    const marker = `coldstart-test-garbage-${process.pid}`;
    const sample = await runFile(fixture('garbage.js'), { args: [marker] });
    assert.equal(sample.ok, false);
    assert.match(sample.error!, /malformed COLDSTART line/);
    assert.deepEqual(processesWith(marker), []);
  });

  it('a stdout line with no end: fails at the 1 MB bound, not when memory runs out', async () => {
    const marker = `coldstart-test-flood-${process.pid}`;
    const sample = await runFile(fixture('flood-line.js'), { args: [marker] });
    assert.equal(sample.ok, false);
    assert.match(sample.error!, /printed a stdout line over 1048576 bytes/);
    assert.deepEqual(processesWith(marker), []);
  });

  it('a wrong answer: fails with the status and body it got', async () => {
    const sample = await runFile(fixture('wrong-answer.js'));
    assert.equal(sample.ok, false);
    assert.match(sample.error!, /wrong answer from POST \/route-0: 200 .*12345/);
    assert.equal(sample.marks, undefined, 'a wrong answer records no time');
  });

  it('a grandchild that ignores SIGTERM does not outlive the sample', async () => {
    const marker = `coldstart-test-grandchild-${process.pid}`;
    const sample = await runFile(fixture('grandchild.js'), { timeoutMs: 800, args: [marker] });
    assert.equal(sample.ok, false);
    assert.ok(await waitFor(() => processesWith(marker).length === 0, 3000), `left behind: ${processesWith(marker).join(', ')}`);
  });

  it('a program that cannot be spawned: fails with the spawn error, does not throw', async () => {
    const missing = fixture('no-such-runtime');
    const sample = await runFile(fixture('crash.js'), { command: missing });
    assert.equal(sample.ok, false);
    assert.equal(sample.error, `could not start: spawn ${missing} ENOENT`);
    assert.equal(sample.marks, undefined);
    assert.equal(sample.stderrTail, undefined, 'nothing ran, so nothing was printed');
  });

  it("node on a file that does not exist: exits before ready with node's own error", async () => {
    const sample = await runFile(fixture('does-not-exist.js'));
    assert.equal(sample.ok, false);
    assert.match(sample.error!, /^exited with code 1 before it was ready: Error: Cannot find module .*does-not-exist\.js/);
  });
});

describe('runner: the child environment', () => {
  it('passes PATH, HOME and NODE_ENV=production only, never NODE_EXTRA_CA_CERTS or NODE_OPTIONS', () => {
    const parent = { PATH: '/usr/bin:/bin', HOME: '/root', NODE_EXTRA_CA_CERTS: '/x.pem', NODE_OPTIONS: '--inspect', SECRET: 's' };
    const { env, dropped } = childEnvironment(parent);
    assert.deepEqual(env, { NODE_ENV: 'production', PATH: '/usr/bin:/bin', HOME: '/root' });
    assert.deepEqual(dropped, ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'SECRET']);
  });

  it('what the spawned child really sees', async () => {
    const seen = echoedEnv(await runFile(fixture('env-echo.js')));
    assert.equal(seen.NODE_ENV, 'production');
    assert.equal(seen.NODE_EXTRA_CA_CERTS, undefined);
    assert.equal(seen.NODE_OPTIONS, undefined);
    assert.ok(seen.PATH);
  });
});

describe('runner: the after-answer line', () => {
  it('parses a valid line and ignores anything else without throwing', () => {
    assert.deepEqual(parseAfterLine(JSON.stringify({ v: 2, after: 'firstResponse', cpu: 12.5, rss: 3 })), { cpu: 12.5, rss: 3 });
    assert.deepEqual(parseAfterLine(JSON.stringify({ v: 2, after: 'firstResponse', cpu: 12.5 })), { cpu: 12.5, rss: undefined });
    const bad = [
      '{',
      'null',
      '[]',
      '{"v":1,"after":"firstResponse","cpu":1}',
      '{"v":2,"after":"x","cpu":1}',
      '{"v":2,"after":"firstResponse","cpu":-1}',
      '{"v":2,"after":"firstResponse"}',
    ];
    for (const line of bad) {
      assert.equal(parseAfterLine(line), undefined, line);
    }
  });

  it('a valid line gives cpu.firstResponse, at least the CPU time at listen', async () => {
    const sample = await runFile(fixture('after-line.js'), { args: ['good'] });
    assert.equal(sample.ok, true, sample.error);
    const cpu = sample.cpu!;
    assert.ok(cpu.start! <= cpu.imported! && cpu.imported! <= cpu.startup! && cpu.startup! <= cpu.listen!, JSON.stringify(cpu));
    assert.ok(cpu.firstResponse! >= cpu.listen!, JSON.stringify(cpu));
  });

  for (const mode of ['none', 'garbage', 'backwards']) {
    it(`${mode === 'none' ? 'no line' : `a ${mode} line`}: the sample still counts, without cpu.firstResponse`, async () => {
      const sample = await runFile(fixture('after-line.js'), { args: [mode] });
      assert.equal(sample.ok, true, sample.error);
      assert.equal(sample.cpu?.firstResponse, undefined);
      assert.equal(typeof sample.cpu?.listen, 'number');
      assert.ok(sample.durationMs < 10_000);
    });
  }
});

describe('runner: the ready line', () => {
  const good = {
    v: 1,
    timeOrigin: 1e12,
    marks: { start: 1, imported: 2, startup: 3, listen: 4 },
    port: 8080,
    rss: 1,
    heapUsed: 1,
    runtime: 'node v20',
  };
  const v2 = (cpu: unknown) => JSON.stringify({ ...good, v: 2, cpu });
  it('accepts a well-formed line', () => {
    assert.equal(parseReadyLine(JSON.stringify(good)).port, 8080);
  });
  it('v1 has no CPU times; v2 carries them, each optional (a target without listen leaves it out)', () => {
    assert.deepEqual(parseReadyLine(JSON.stringify(good)).cpu, {});
    const cpu = { start: 30, imported: 60, startup: 70, listen: 71 };
    assert.deepEqual(parseReadyLine(JSON.stringify({ ...good, v: 2, cpu })).cpu, cpu);
    assert.deepEqual(parseReadyLine(JSON.stringify({ ...good, v: 2, cpu: { start: 30, startup: 70 } })).cpu, { start: 30, startup: 70 });
  });
  for (const [what, broken, message] of [
    ['no JSON', '{', /malformed/],
    ['another protocol version', JSON.stringify({ ...good, v: 3 }), /not protocol v1 or v2/],
    ['a CPU time that is not a number', v2({ start: 'x' }), /bad CPU time at "start"/],
    ['a CPU time that is not finite', v2({ start: 1, listen: 7 }).replace(':7', ':1e999'), /bad CPU time at "listen"/],
    ['CPU times out of order', v2({ start: 5, imported: 9, startup: 8 }), /CPU times are out of order at "startup"/],
    ['a cpu that is not an object', v2(12), /"cpu" that is not an object/],
    ['a missing mark', JSON.stringify({ ...good, marks: { start: 1, imported: 2, listen: 4 } }), /no "startup" mark/],
    ['marks out of order', JSON.stringify({ ...good, marks: { start: 5, imported: 2, startup: 3, listen: 4 } }), /out of order/],
    ['no port', JSON.stringify({ ...good, port: 0 }), /no valid port/],
  ] as const) {
    it(`rejects ${what}`, () => assert.throws(() => parseReadyLine(broken), message));
  }
});

describe('runner: one-line reasons', () => {
  it("a crash on Bun is reported by its error line, not Bun's closing version line", () => {
    const stderr =
      "17 |   var sw = process.binding('stream_wrap')\n                        ^\n" +
      'error: process.binding("stream_wrap") is not implemented in Bun\n' +
      '      at /x/node_modules/dtrace.js:17:22\n\nBun v1.4.5 (Linux x64)\n';
    assert.equal(telling(stderr), 'error: process.binding("stream_wrap") is not implemented in Bun');
  });

  it("a crash on node is reported by its Error line, not node's version line", () => {
    const stderr = 'node:internal/x:1\n  throw err;\n  ^\n\nError: boom\n    at Object.<anonymous> (/a.js:1:7)\n\nNode.js v20.20.2\n';
    assert.equal(telling(stderr), 'Error: boom');
  });

  it('folds whitespace and cuts long text with an ellipsis', () => {
    assert.equal(oneLine('a\n  b\tc '), 'a b c');
    assert.equal(oneLine('x'.repeat(10), 4), 'xxxx…');
  });
});
