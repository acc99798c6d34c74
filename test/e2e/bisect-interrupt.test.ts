/**
 * An interrupted bisect step is never a result (issue 46, item 4b), on the real command line: `bisect --git`
 * over a repository of three commits made here (no package.json: nothing is installed), with the fake
 * sampler (`--debug-mode interrupt-after=2` plays Ctrl-C at the third sample of each step's run). The step
 * was logged good or bad from the samples it had, saved in bisect.json, and the bisect went on to exit 0;
 * now the bisect stops at the interrupted step with exit 130, saves nothing of it, and the same command
 * measures it again.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../support/helpers.ts';
import { tempDir } from '../support/in-process.ts';

function repository(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-C', dir, '-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };
  git('init', '-q');
  writeFileSync(
    path.join(dir, 'server.js'),
    "require('node:http').createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');\n",
  );
  const commits: string[] = [];
  for (let i = 1; i <= 3; i++) {
    writeFileSync(path.join(dir, 'work.js'), `// revision ${i}\n`);
    git('add', '-A');
    git('commit', '-q', '-m', `revision ${i}`);
    commits.push(git('rev-parse', '--short=12', 'HEAD'));
  }
  return commits;
}

describe('bisect interrupted during a step', { timeout: 240_000 }, () => {
  it('exits 130, logs and saves nothing of the step, and the resume measures it again', () => {
    const dir = tempDir('coldstart-bisect-interrupt-');
    const repo = path.join(dir, 'repo');
    const out = path.join(dir, 'bisect');
    const commits = repository(repo);
    const args = ['bisect', '--git', `${commits[0]}..${commits[2]}`, '--entry', path.join(repo, 'server.js'), '--cwd', repo];
    const common = [...args, '--measure', 'time', '--out', out];
    const interrupted = runCli([...common, '--debug-mode', 'interrupt-after=2']);
    assert.equal(interrupted.status, 130, interrupted.stderr);
    assert.match(
      interrupted.stderr,
      new RegExp(`coldstart: interrupted during commit ${commits[0]}: not a result; the same command resumes and measures it again\n$`),
    );
    assert.doesNotMatch(interrupted.stderr, /^step \d+:/m, 'no step logged');
    const state = JSON.parse(readFileSync(path.join(out, 'bisect.json'), 'utf8')) as { results: object; steps: string[] };
    assert.deepEqual(state.results, {});
    assert.deepEqual(state.steps, []);

    const resumed = runCli([...common, '--debug-mode']);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming: 0 of 3 versions already measured/);
    assert.match(resumed.stderr, new RegExp(`^step 1: commit ${commits[0]} `, 'm'));
    const after = JSON.parse(readFileSync(path.join(out, 'bisect.json'), 'utf8')) as { steps: string[] };
    assert.equal(after.steps[0], commits[0]);
  });
});
