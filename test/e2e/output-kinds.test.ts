/**
 * An output path keeps its kind (issue 37): a regular file (or nothing) is replaced whole, a
 * character device or a FIFO is written through, a link is followed and stays a link, a link into
 * the descriptor table (`/dev/stdout`) writes to the stream, and a block device or a socket is
 * refused with one line. Every special file here is made in a temporary folder (mknod as root,
 * mkfifo), so a regression replaces a copy, never the machine's /dev/null or /dev/stdout.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { writeFileWhole } from '../../metrics/store/files.ts';
import { CLI, FIXTURES, ROOT, runCli, runClis, tempDir } from '../support/helpers.ts';

const GOLDEN = path.join(FIXTURES, 'golden-run');
const isRoot = process.getuid?.() === 0;
const hasMkfifo = spawnSync('mkfifo', ['--version']).status === 0;
/** A private mount namespace with a /dev of its own (tmpfs): the real /dev/null and /dev/stdout names, without risking the machine's. */
const privateDev =
  isRoot && spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs none /dev']).status === 0;

function kind(file: string): string {
  const s = lstatSync(file);
  if (s.isSymbolicLink()) return 'link';
  if (s.isCharacterDevice()) return 'char';
  if (s.isBlockDevice()) return 'block';
  if (s.isFIFO()) return 'fifo';
  if (s.isFile()) return 'file';
  return 'other';
}

describe('an output path keeps its kind', () => {
  it(
    'a character device (a private copy of /dev/null, made with mknod) is written through and stays a device',
    { skip: !isRoot && 'needs root for mknod' },
    () => {
      const dir = tempDir('coldstart-test-kinds-');
      const device = path.join(dir, 'null');
      assert.equal(spawnSync('mknod', [device, 'c', '1', '3']).status, 0);
      writeFileWhole(device, 'a report\n');
      assert.equal(kind(device), 'char');
      // and through the CLI: compare's --out
      const result = runCli(['compare', GOLDEN, GOLDEN, '--out', device]);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(kind(device), 'char');
    },
  );

  it('a FIFO is written through: a reader gets the whole report, and it stays a FIFO', { skip: !hasMkfifo && 'needs mkfifo' }, async () => {
    const dir = tempDir('coldstart-test-kinds-');
    const fifo = path.join(dir, 'pipe');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let read = '';
    reader.stdout.on('data', (chunk: Buffer) => (read += chunk.toString()));
    const readerDone = new Promise<void>((resolve) => reader.once('exit', () => resolve()));
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const env = { ...process.env };
      delete env.NODE_EXTRA_CA_CERTS;
      const child = spawn(process.execPath, [...CLI, 'compare', GOLDEN, GOLDEN, '--out', fifo], { cwd: ROOT, env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });
    // a FIFO replaced by a regular file leaves the reader waiting for a writer: it is ended, not waited for
    const ended = await Promise.race([readerDone.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
    if (!ended) reader.kill();
    assert.equal(result.code, 0, result.stderr);
    assert.equal(kind(fifo), 'fifo');
    assert.ok(ended, 'the reader got an end of file: the FIFO was written and closed');
    assert.equal(read, result.stdout, 'the FIFO carried the same markdown as stdout');
    assert.match(read, /\|/);
  });

  it('a link to a regular file is followed: the file gets the output, the link stays a link', () => {
    const dir = tempDir('coldstart-test-kinds-');
    const real = path.join(dir, 'real.md');
    const link = path.join(dir, 'link.md');
    writeFileSync(real, 'old\n');
    symlinkSync(real, link);
    writeFileWhole(link, 'new\n');
    assert.equal(kind(link), 'link');
    assert.equal(readlinkSync(link), real);
    assert.equal(readFileSync(real, 'utf8'), 'new\n');
  });

  it('a dangling link: the file it names is made, the link stays a link; a loop of links is refused, one line', () => {
    const dir = tempDir('coldstart-test-kinds-');
    const link = path.join(dir, 'link.md');
    const target = path.join(dir, 'made.md');
    symlinkSync('made.md', link);
    writeFileWhole(link, 'new\n');
    assert.equal(kind(link), 'link');
    assert.equal(readFileSync(target, 'utf8'), 'new\n');
    const loop = path.join(dir, 'loop.md');
    symlinkSync('loop.md', loop);
    assert.throws(() => writeFileWhole(loop, 'x\n'), /loop\.md is a symbolic link that loops \(more than 40 links\)/);
    assert.equal(kind(loop), 'link');
  });

  it('a link into the descriptor table (as /dev/stdout is) writes to the stream and stays a link', () => {
    const dir = tempDir('coldstart-test-kinds-');
    const link = path.join(dir, 'stdout');
    // the child's own stdout, through a link of ours (a regression replaces this link, not /dev/stdout)
    symlinkSync('/proc/self/fd/1', link);
    const result = runCli(['compare', GOLDEN, GOLDEN, '--out', link]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(kind(link), 'link');
    // the markdown reached stdout twice: once printed, once written through the link
    const table = result.stdout.split('\n').find((l) => l.startsWith('| '));
    assert.ok(table, 'a table line on stdout');
    assert.equal(result.stdout.split(table).length - 1, 2, 'the markdown arrived on stdout through --out as well');
  });

  it(
    '/dev/null and /dev/stdout by their own names, in a private mount namespace: both keep their kind',
    { skip: !privateDev && 'needs root and unshare --mount' },
    () => {
      const run = path.join(tempDir('coldstart-test-kinds-'), 'run');
      const outMd = JSON.stringify(path.join(run, '..', 'out.md'));
      cpSync(GOLDEN, run, { recursive: true });
      const node = `env -u NODE_EXTRA_CA_CERTS ${JSON.stringify(process.execPath)} ${CLI.map((a) => JSON.stringify(a)).join(' ')}`;
      const script = [
        'set -e',
        'mount -t tmpfs none /dev',
        'mknod -m 666 /dev/null c 1 3',
        'ln -s /proc/self/fd/1 /dev/stdout',
        'ln -s /proc/self/fd/2 /dev/stderr',
        `${node} report ${JSON.stringify(run)} --export-json /dev/null >/dev/null`,
        `${node} compare ${JSON.stringify(run)} ${JSON.stringify(run)} --out /dev/stdout > ${outMd}`,
        'stat -c %F /dev/null',
        'stat -c %F /dev/stdout',
      ].join('\n');
      const result = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(result.stdout.trim().split('\n'), ['character special file', 'symbolic link']);
      const out = readFileSync(path.join(run, '..', 'out.md'), 'utf8');
      const table = out.split('\n').find((l) => l.startsWith('| '));
      assert.ok(table && out.split(table).length - 1 === 2, 'compare printed its markdown and wrote it again through /dev/stdout');
    },
  );

  it('a block device is refused with one line and exit 2', { skip: !isRoot && 'needs root for mknod' }, () => {
    const dir = tempDir('coldstart-test-kinds-');
    const device = path.join(dir, 'block');
    // a loop device's numbers: never opened, only named
    assert.equal(spawnSync('mknod', [device, 'b', '7', '200']).status, 0);
    const result = runCli(['compare', GOLDEN, GOLDEN, '--out', device]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /block device/);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.equal(kind(device), 'block');
  });
});

describe('an output that cannot be written is refused before the first sample (issue 38)', () => {
  it(
    '--export-json on a read-only filesystem: exit 2, one line, no run folder',
    { skip: !privateDev && 'needs root and unshare --mount' },
    () => {
      const dir = tempDir('coldstart-test-kinds-');
      const mount = path.join(dir, 'ro');
      const out = path.join(dir, 'run');
      const node = `env -u NODE_EXTRA_CA_CERTS ${JSON.stringify(process.execPath)} ${CLI.map((a) => JSON.stringify(a)).join(' ')}`;
      const script = [
        `mkdir -p ${JSON.stringify(mount)}`,
        `mount -t tmpfs -o ro none ${JSON.stringify(mount)}`,
        `${node} run --debug-mode -f node-http -r 1 --samples 1 --warmup 0 --out ${JSON.stringify(out)} ` +
          `--export-json ${JSON.stringify(path.join(mount, 'e.json'))}`,
      ].join('\n');
      const result = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /^coldstart: --export-json: the folder of .*e\.json is not writable\n$/);
      assert.equal(existsSync(out), false, 'nothing was measured');
    },
  );

  it('every output path of the measuring commands on /proc (no file can be made there): exit 2, one line, nothing measured', async () => {
    const dir = tempDir('coldstart-test-kinds-');
    const app = path.join(dir, 'app.cjs');
    writeFileSync(app, "require('node:http').createServer((q, r) => r.end('ok')).listen(Number(process.env.PORT));\n");
    const out = path.join(dir, 'run');
    const sampled = ['--debug-mode', '--samples', '1', '--warmup', '0'];
    const cases: [string, string[]][] = [
      ['run --export-json', ['run', '-f', 'node-http', '-r', '1', ...sampled, '--out', out, '--export-json', '/proc/coldstart-e.json']],
      ['run --out', ['run', '-f', 'node-http', '-r', '1', ...sampled, '--out', '/proc/coldstart-run']],
      ['measure --export-json', ['measure', '--entry', app, ...sampled, '--out', out, '--export-json', '/proc/coldstart-e.json']],
      ['measure --out', ['measure', '--entry', app, ...sampled, '--out', '/proc/coldstart-run']],
      [
        'verify --out',
        ['verify', path.join(ROOT, 'results', 'published', '2026-11-27-seed-table'), ...sampled.slice(0, 3), '--out', '/proc/cs'],
      ],
      ['report --export-json', ['report', GOLDEN, '--export-json', '/proc/coldstart-e.json']],
      ['compare --out', ['compare', GOLDEN, GOLDEN, '--out', '/proc/coldstart-compare.md']],
    ];
    const results = await runClis(cases.map(([, args]) => args));
    cases.forEach(([name], i) => {
      const result = results[i]!;
      assert.equal(result.status, 2, `${name}: ${result.stderr}`);
      assert.equal(result.stderr.trim().split('\n').length, 1, `${name}: one line: ${result.stderr}`);
      assert.match(result.stderr, /^coldstart: --(out|export-json)\b.*\/proc\/c/, name);
      assert.doesNotMatch(result.stdout, /done |ok, /, `${name}: nothing was measured`);
    });
    assert.equal(existsSync(out), false, 'no run folder was made');
  });
});
