/**
 * `coldstart gate` fed what a hostile or careless user gives it: a --base that is an option, an --out that is a
 * folder of the user's, links planted in a gate folder (gate.md, a round's run folder), a CI file that is a
 * folder or a pipe nothing reads, an app whose count fails, and a SIGTERM while it counts. Each is refused in one line with exit 2 and
 * writes nothing through the link (the file it points at unchanged), or, for the signal, ends the gate with
 * 143, every child stopped and its scratch folder removed. Needs valgrind (the gate refuses to start without).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { ROOT, tempDir } from '../support/helpers.ts';
import { GATE_SKIP as skip, git } from '../support/gate.ts';

const APP = `const http = require('node:http');
http.createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT || 3000));
`;

interface Ended {
  status: number | null;
  stderr: string;
}

/** The gate in `repo` with `args`; `onLine` sees each stderr line (and may signal the child). */
function gate(repo: string, args: string[], env: NodeJS.ProcessEnv = {}, onLine?: (line: string, pid: number) => void): Promise<Ended> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'coldstart.js'), 'gate', '--entry', 'app.js', ...args], {
      cwd: repo,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, GITHUB_STEP_SUMMARY: '', GITHUB_OUTPUT: '', ...env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      for (const line of chunk.toString('utf8').split('\n')) if (line) onLine?.(line, child.pid!);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

const oneLine = (ended: Ended) =>
  ended.stderr
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('gate: ')).length <= 1;

describe('coldstart gate refuses hostile input in one line and writes nothing through a link', { skip, timeout: 600_000 }, () => {
  let root = '';
  let repo = '';
  let victim = '';
  before(() => {
    root = tempDir('coldstart-gate-hostile-');
    repo = path.join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'app.js'), APP);
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'base');
    victim = path.join(root, 'victim');
    mkdirSync(victim);
    writeFileSync(path.join(victim, 'keep.txt'), 'the user’s\n');
  });

  it('a --base that is an option is refused (exit 2), not passed to git', async () => {
    const ended = await gate(repo, ['--base', '--output=/dev/null', '--out', path.join(root, 'o1')]);
    assert.equal(ended.status, 2, ended.stderr);
    assert.match(ended.stderr, /--base --output=\/dev\/null: a commit, branch or tag, not an option/);
    assert.equal(existsSync(path.join(root, 'o1')), false);
  });

  it("an --out that is a folder of the user's is refused, its files untouched", async () => {
    const ended = await gate(repo, ['--base', 'HEAD', '--out', victim]);
    assert.equal(ended.status, 2, ended.stderr);
    assert.match(ended.stderr, /is not empty \(keep\.txt\) and not a gate folder/);
    assert.ok(oneLine(ended), ended.stderr);
    assert.deepEqual(readdirSync(victim), ['keep.txt']);
  });

  it("gate.md planted as a link in a gate folder is refused before anything runs; the link's target unchanged", async () => {
    const out = path.join(root, 'o2');
    mkdirSync(out);
    writeFileSync(path.join(out, 'gate.json'), '{}\n');
    symlinkSync(path.join(victim, 'keep.txt'), path.join(out, 'gate.md'));
    const ended = await gate(repo, ['--base', 'HEAD', '--out', out]);
    assert.equal(ended.status, 2, ended.stderr);
    assert.match(ended.stderr, /gate\.md.*link/);
    assert.equal(readFileSync(path.join(victim, 'keep.txt'), 'utf8'), 'the user’s\n');
  });

  it("a round's run folder planted as a link is refused, nothing removed or written where it leads", async () => {
    const out = path.join(root, 'o3');
    mkdirSync(out);
    writeFileSync(path.join(out, 'gate.json'), '{}\n');
    symlinkSync(victim, path.join(out, 'base-1'));
    const ended = await gate(repo, ['--base', 'HEAD', '--out', out]);
    assert.equal(ended.status, 2, ended.stderr);
    assert.match(ended.stderr, /base-1.*link/);
    assert.deepEqual(readdirSync(victim), ['keep.txt']);
  });

  it('$GITHUB_STEP_SUMMARY naming a folder is refused before anything is counted', async () => {
    const ended = await gate(repo, ['--base', 'HEAD', '--out', path.join(root, 'o4')], { GITHUB_STEP_SUMMARY: victim });
    assert.equal(ended.status, 2, ended.stderr);
    assert.match(ended.stderr, /\$GITHUB_STEP_SUMMARY .* is not a file the gate can append to/);
  });

  it('$GITHUB_OUTPUT a pipe that nothing reads: one line, exit 2, never a hang; gate.md is written first', async () => {
    const fifo = path.join(root, 'output-fifo');
    spawnSync('mkfifo', [fifo]);
    const out = path.join(root, 'o5');
    const ended = await gate(repo, ['--base', 'HEAD', '--out', out, '--rounds', '1'], { GITHUB_OUTPUT: fifo });
    assert.equal(ended.status, 2, ended.stderr);
    assert.match(ended.stderr, /\$GITHUB_OUTPUT .* cannot be appended to: a pipe that nothing reads/);
    assert.ok(existsSync(path.join(out, 'gate.md')), 'the report is kept');
  });

  it('an app whose count fails (it calls process.cpuUsage(), which cuts the count) is its reason in one line, exit 3', async () => {
    const other = path.join(root, 'cpu-usage');
    mkdirSync(other);
    git(other, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(other, 'app.js'), `process.cpuUsage();\n${APP}`);
    git(other, 'add', '.');
    git(other, 'commit', '-qm', 'base');
    const ended = await gate(other, ['--base', 'HEAD', '--out', path.join(root, 'o7')]);
    assert.equal(ended.status, 3, ended.stderr);
    assert.ok(oneLine(ended), ended.stderr);
    assert.match(
      ended.stderr,
      /coldstart: the count of (base|head) failed: instruction counts: .*calls getrusage\(\).*\((base|head)-1\/summary\.md\)/,
    );
    assert.doesNotMatch(ended.stderr, /internal error/);
  });

  it('SIGTERM while it counts: exit 143, no child left, the scratch folder removed', async () => {
    const work = path.join(root, 'work');
    mkdirSync(work);
    let sent = false;
    const ended = await gate(repo, ['--base', 'HEAD', '--out', path.join(root, 'o6'), '--work', work], {}, (line, pid) => {
      if (!sent && /round 1: counting/.test(line)) {
        sent = true;
        setTimeout(() => process.kill(pid, 'SIGTERM'), 1500);
      }
    });
    assert.ok(sent, ended.stderr);
    assert.equal(ended.status, 143, ended.stderr);
    assert.match(ended.stderr, /gate: SIGTERM: stopped/);
    assert.deepEqual(readdirSync(work), [], 'the scratch folder is removed');
    const left = spawnSync('pgrep', ['-f', work], { encoding: 'utf8' }).stdout.trim();
    assert.equal(left, '', `processes left: ${left}`);
  });
});
