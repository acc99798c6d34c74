/**
 * Issue 46, items 1 and 6 (docs/guide/robustness.md, "Folders the tool owns"): no file the tool writes
 * inside a folder it owns (a run, results or bisect folder) is reached through a link planted there,
 * and an --out folder is the tool's own (a run folder's meta.json, a bisect's bisect.json), empty, or new:
 * a folder of the user's is refused before anything runs. Each refusal is one line, exit 2, and the
 * file the link names (or the user's file) is left as it was. In-process: the CLI's main() with the
 * fake deps (--debug-mode) where a command runs anything, the use case itself for bisect's folder.
 */
import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { writeLambdaPackage } from '../../metrics/cloud/package.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { options } from '../support/bisect-fixtures.ts';
import { runBisect, STATE_FILE, type BisectDeps, type BisectOptions } from '../../metrics/pipeline/bisect.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { appendLine } from '../../metrics/store/files.ts';
import { fixture, tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';

const MINE = 'the user’s own file\n';

function refused(result: MainResult, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit ${result.code}\n${result.stdout}\n${result.stderr}`);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, pattern);
}

/** A file of the user's outside every folder the tool owns, and the path of one that does not exist. */
function victim(): { file: string; missing: string } {
  const dir = tempDir('coldstart-victim-');
  const file = path.join(dir, 'precious.txt');
  writeFileSync(file, MINE);
  return { file, missing: path.join(dir, 'never-made.txt') };
}

/** A copy of the golden run's raw data (meta.json, samples.jsonl): a run folder of the tool's. */
function goldenCopy(): string {
  const dir = path.join(tempDir('coldstart-owned-'), 'run');
  mkdirSync(dir);
  for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(fixture('golden-run'), file), path.join(dir, file));
  return dir;
}

const linkPattern = (name: string) => new RegExp(`${name.replace(/\./g, '\\.')} is a symbolic link inside .*never followed`);
const isLinkRefusal = (name: string) => (error: unknown) => error instanceof UsageError && linkPattern(name).test(error.message);

describe('a link planted in a run folder is never followed', () => {
  let written: string[];
  before(async () => {
    written = (await writeReport(goldenCopy())).written;
  });

  it("the golden run's report writes summary.md, summary.csv, report.html, levers.md and charts", () => {
    for (const name of ['summary.md', 'summary.csv', 'report.html', 'levers.md']) assert.ok(written.includes(name), name);
    assert.ok(written.filter((name) => name.endsWith('.svg')).length >= 3, written.join(', '));
  });

  it('report: each of its files a link to a file of the user: exit 2 naming it, the file unchanged, nothing written', async () => {
    for (const name of written) {
      const dir = goldenCopy();
      const { file } = victim();
      symlinkSync(file, path.join(dir, name));
      refused(await mainInProcess(['report', dir]), linkPattern(name));
      assert.equal(readFileSync(file, 'utf8'), MINE, `${name}: the file its link names is unchanged`);
      assert.ok(lstatSync(path.join(dir, name)).isSymbolicLink(), `${name}: the link is left as it was`);
      assert.deepEqual(readdirSync(dir).sort(), [name, 'meta.json', 'samples.jsonl'].sort(), `${name}: nothing else written`);
    }
  });

  it('report: a dangling link in place of summary.md or summary.csv makes no file where it points', async () => {
    for (const name of ['summary.md', 'summary.csv']) {
      const dir = goldenCopy();
      const { missing } = victim();
      symlinkSync(missing, path.join(dir, name));
      refused(await mainInProcess(['report', dir]), linkPattern(name));
      assert.ok(!existsSync(missing), `${name}: nothing made at ${missing}`);
    }
  });

  it('report: samples.jsonl or meta.json read through a link out of the folder is refused; a link inside it is read', async () => {
    for (const name of ['samples.jsonl', 'meta.json']) {
      const dir = goldenCopy();
      const outside = victim().file;
      copyFileSync(path.join(dir, name), outside);
      rmSync(path.join(dir, name));
      symlinkSync(outside, path.join(dir, name));
      refused(await mainInProcess(['report', dir]), linkPattern(name));
    }
    const inside = goldenCopy();
    copyFileSync(path.join(inside, 'samples.jsonl'), path.join(inside, 'samples-kept.jsonl'));
    rmSync(path.join(inside, 'samples.jsonl'));
    symlinkSync('samples-kept.jsonl', path.join(inside, 'samples.jsonl'));
    const result = await mainInProcess(['report', inside]);
    assert.equal(result.code, 0, result.stderr);
  });

  it('run --out a run folder whose report.html is a link: exit 2 before any sample, the file unchanged', async () => {
    const dir = path.join(tempDir('coldstart-owned-'), 'run');
    mkdirSync(dir);
    copyFileSync(path.join(fixture('golden-run'), 'meta.json'), path.join(dir, 'meta.json'));
    const { file } = victim();
    symlinkSync(file, path.join(dir, 'report.html'));
    refused(
      await mainInProcess(['run', '--frameworks', 'node-http', '--routes', '1', '--samples', '1', '--out', dir, '--debug-mode']),
      linkPattern('report.html'),
    );
    assert.equal(readFileSync(file, 'utf8'), MINE);
    assert.ok(!existsSync(path.join(dir, 'samples.jsonl')), 'no sample taken');
  });
});

describe('samples.jsonl is appended without following a link', () => {
  it('run --out a run folder whose samples.jsonl is a dangling link: exit 2 before any sample, nothing made where it points', async () => {
    const dir = path.join(tempDir('coldstart-owned-'), 'run');
    mkdirSync(dir);
    copyFileSync(path.join(fixture('golden-run'), 'meta.json'), path.join(dir, 'meta.json'));
    const { missing } = victim();
    symlinkSync(missing, path.join(dir, 'samples.jsonl'));
    refused(
      await mainInProcess(['run', '--frameworks', 'node-http', '--routes', '1', '--samples', '1', '--out', dir, '--debug-mode']),
      linkPattern('samples.jsonl'),
    );
    assert.ok(!existsSync(missing));
  });

  it('appendLine itself refuses a link (O_NOFOLLOW), even one planted after the checks', () => {
    const dir = tempDir('coldstart-owned-');
    const { file } = victim();
    symlinkSync(file, path.join(dir, 'samples.jsonl'));
    assert.throws(() => appendLine(path.join(dir, 'samples.jsonl'), '{}'), isLinkRefusal('samples.jsonl'));
    assert.equal(readFileSync(file, 'utf8'), MINE);
  });
});

// a run never appends to a samples.jsonl it did not make (run: 'already holds a run'): a hard link or a FIFO could only be
// planted between its checks and its first sample, which appendLine's own checks on the opened file refuse
describe('samples.jsonl is appended only as a regular file of one name', () => {
  const hardPattern = /samples\.jsonl is a hard link \(2 names\) inside .*never written through/;

  it('appendLine itself refuses a hard link planted after the checks', () => {
    const dir = tempDir('coldstart-owned-');
    const { file } = victim();
    linkSync(file, path.join(dir, 'samples.jsonl'));
    assert.throws(
      () => appendLine(path.join(dir, 'samples.jsonl'), '{}'),
      (error) => error instanceof UsageError && hardPattern.test(error.message),
    );
    assert.equal(readFileSync(file, 'utf8'), MINE);
  });
});

describe('a link planted in a results folder is never followed', () => {
  for (const name of ['index.html', 'RESULTS.md']) {
    it(`results-index: ${name} a link to a file of the user: exit 2 naming it, the file unchanged, neither page written`, async () => {
      const root = tempDir('coldstart-results-');
      mkdirSync(path.join(root, 'published'));
      const { file } = victim();
      symlinkSync(file, path.join(root, name));
      refused(await mainInProcess(['results-index', root]), linkPattern(name));
      assert.equal(readFileSync(file, 'utf8'), MINE);
      assert.deepEqual(readdirSync(root).sort(), [name, 'published'].sort());
    });
  }

  it('results-index on a results folder without links still writes both pages (the tool’s own folder stays writable)', async () => {
    const root = tempDir('coldstart-results-');
    mkdirSync(path.join(root, 'published'));
    for (let i = 0; i < 2; i++) assert.equal((await mainInProcess(['results-index', root])).code, 0);
    assert.ok(existsSync(path.join(root, 'index.html')) && existsSync(path.join(root, 'RESULTS.md')));
  });
});

const RELEASES = ['1.0.0', '1.0.1', '1.0.2', '1.0.3'];

function bisectOptions(dir: string): BisectOptions {
  return options(dir, { good: RELEASES[0]!, bad: RELEASES[3]! });
}

/** Fake steps: each writes a file into the step's run folder, as a real run would, and counts 1.0.2 on as 3 % slower. */
function bisectDeps(stepDirs: string[]): BisectDeps {
  return {
    candidates: () => RELEASES,
    log: () => undefined,
    measure: (v, stepDir) => {
      stepDirs.push(stepDir);
      mkdirSync(stepDir, { recursive: true });
      writeFileSync(path.join(stepDir, 'meta.json'), '{}\n');
      return Promise.resolve({ kind: 'measured', value: v >= '1.0.2' ? 1_030_000_000 : 1_000_000_000, phases: {} });
    },
  };
}

describe('a link planted in a bisect folder is never followed', () => {
  it('a resumed bisect whose bisect.md is a link: refused before any step, the file unchanged', async () => {
    const dir = tempDir('coldstart-bisect-');
    await runBisect(bisectOptions(dir), bisectDeps([]));
    rmSync(path.join(dir, 'bisect.md'));
    const { file } = victim();
    symlinkSync(file, path.join(dir, 'bisect.md'));
    const steps: string[] = [];
    await assert.rejects(runBisect(bisectOptions(dir), bisectDeps(steps)), isLinkRefusal('bisect.md'));
    assert.equal(readFileSync(file, 'utf8'), MINE);
    assert.deepEqual(steps, []);
  });

  it('a bisect whose steps/ is a link to a folder elsewhere: refused before any step, nothing written there', async () => {
    // fresh: a folder holding only the link is no bisect folder (no bisect.json), refused as the user's
    const fresh = tempDir('coldstart-bisect-');
    const elsewhere = tempDir('coldstart-elsewhere-');
    symlinkSync(elsewhere, path.join(fresh, 'steps'));
    const steps: string[] = [];
    await assert.rejects(
      runBisect(bisectOptions(fresh), bisectDeps(steps)),
      (e: unknown) => e instanceof UsageError && /steps/.test(e.message),
    );
    // a bisect folder (its state written, no step yet) whose steps/ is then made a link
    const dir = tempDir('coldstart-bisect-');
    const interrupted = { ...bisectDeps(steps), measure: () => Promise.reject(new Error('interrupted')) };
    await assert.rejects(runBisect(bisectOptions(dir), interrupted), /interrupted/);
    assert.ok(existsSync(path.join(dir, STATE_FILE)));
    rmSync(path.join(dir, 'steps'), { recursive: true, force: true });
    symlinkSync(elsewhere, path.join(dir, 'steps'));
    await assert.rejects(runBisect(bisectOptions(dir), bisectDeps(steps)), isLinkRefusal('steps'));
    assert.deepEqual(steps, []);
    assert.deepEqual(readdirSync(elsewhere), []);
  });

  it('bisect.json a link: refused, the file unchanged', async () => {
    const dir = tempDir('coldstart-bisect-');
    const { file } = victim();
    symlinkSync(file, path.join(dir, STATE_FILE));
    await assert.rejects(
      runBisect(bisectOptions(dir), bisectDeps([])),
      (e: unknown) => e instanceof UsageError && /bisect\.json/.test(e.message),
    );
    assert.equal(readFileSync(file, 'utf8'), MINE);
  });
});

/** A folder of the user's: one file of theirs, no run marker. */
function usersFolder(name = 'summary.md'): { dir: string; file: string } {
  const dir = path.join(tempDir('coldstart-users-'), 'notes');
  mkdirSync(dir);
  const file = path.join(dir, name);
  writeFileSync(file, MINE);
  return { dir, file };
}

const NOT_OURS = new RegExp(
  "--out .*notes is not empty \\(.*\\) and not (a (run|bisect|package) folder|a folder of lambda:run's run folders)\\b" +
    '.*choose a new or empty folder',
);

describe("--out a folder of the user's is refused before anything runs", () => {
  const cases: { command: string; args: (dir: string, base: string) => string[] | Promise<string[]> }[] = [
    { command: 'run', args: (dir) => ['run', '-f', 'node-http', '-r', '1', '--samples', '1', '--out', dir, '--debug-mode'] },
    {
      command: 'measure',
      args: (dir, base) => {
        const app = path.join(base, 'app.js');
        writeFileSync(app, "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n");
        return ['measure', '--entry', app, '--samples', '1', '--out', dir, '--debug-mode'];
      },
    },
    {
      command: 'verify',
      args: async (dir, base) => {
        const published = path.join(base, 'published');
        const made = await mainInProcess([
          'run',
          '-f',
          'node-http,hono',
          '-r',
          '1,100',
          '--samples',
          '3',
          '--out',
          published,
          '--debug-mode',
        ]);
        assert.equal(made.code, 0, made.stdout + made.stderr);
        return ['verify', published, '--out', dir, '--debug-mode'];
      },
    },
    {
      command: 'bisect',
      args: (dir) => ['bisect', '--package', 'fastify', '--range', '4.0.0..5.0.0', '--framework', 'fastify', '--out', dir, '--debug-mode'],
    },
    {
      command: 'lambda-run',
      args: (dir, base) => {
        const bundle = path.join(base, 'index.js');
        writeFileSync(bundle, 'exports.handler = async () => ({ statusCode: 200, body: "{}" });\n');
        const pkg = path.join(base, 'pkg');
        writeLambdaPackage(pkg, [{ cell: { framework: 'hono', variant: 'validated', routes: 1 }, bundle }], { runtime: 'nodejs22.x' });
        return ['lambda-run', pkg, '--region', 'eu-west-1', '--create-role', '--out', dir, '--dry-run', '--run-id', 'own1'];
      },
    },
    {
      command: 'lambda-run (two architectures: a run folder for each under --out)',
      args: (dir, base) => {
        const bundle = path.join(base, 'index.js');
        writeFileSync(bundle, 'exports.handler = async () => ({ statusCode: 200, body: "{}" });\n');
        const pkg = path.join(base, 'pkg');
        writeLambdaPackage(pkg, [{ cell: { framework: 'hono', variant: 'validated', routes: 1 }, bundle }], { runtime: 'nodejs22.x' });
        return [
          'lambda-run',
          pkg,
          '--region',
          'eu-west-1',
          '--create-role',
          '--out',
          dir,
          '--dry-run',
          '--run-id',
          'own1',
          '--arch',
          'x86_64,arm64',
        ];
      },
    },
    { command: 'lambda-package', args: (dir) => ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', dir] },
    {
      command: 'lambda-import',
      args: (dir, base) => {
        const log = path.join(base, 'report.log');
        writeFileSync(
          log,
          'REPORT RequestId: a Duration: 1.00 ms Billed Duration: 2 ms Memory Size: 1024 MB Max Memory Used: 50 MB ' +
            'Init Duration: 100.00 ms\n',
        );
        return ['lambda-import', log, '--function', 'coldstart-node-http-1-validated', '--out', dir];
      },
    },
  ];
  for (const { command, args } of cases) {
    it(`${command} --out notes/ holding summary.md of the user's: exit 2, one line, the file unchanged, nothing added`, async () => {
      const { dir, file } = usersFolder();
      const result = await mainInProcess(await args(dir, path.dirname(dir)));
      refused(result, NOT_OURS);
      assert.equal(readFileSync(file, 'utf8'), MINE);
      assert.deepEqual(readdirSync(dir), ['summary.md'], `${command} added nothing to the user's folder`);
    });
  }

  it("merge --out notes/ holding a file of the user's: exit 2, the file unchanged", async () => {
    const { dir, file } = usersFolder('app.js');
    refused(await mainInProcess(['merge', goldenCopy(), goldenCopy(), '--out', dir]), /notes/);
    assert.equal(readFileSync(file, 'utf8'), MINE);
  });

  it('the tool’s own folders stay writable: run --out an empty folder, then report on that run folder twice', async () => {
    const empty = path.join(tempDir('coldstart-own-'), 'run');
    mkdirSync(empty);
    const result = await mainInProcess(['run', '-f', 'node-http', '-r', '1', '--samples', '1', '--out', empty, '--debug-mode']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    for (let i = 0; i < 2; i++) assert.equal((await mainInProcess(['report', empty])).code, 0);
  });
});
