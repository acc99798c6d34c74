/**
 * The lambda-web target end to end (issue 49): generated servers and a user's own server run as Lambda Web
 * Functions: listening on AWS_LAMBDA_HTTP_ENDPOINT, ready when that address accepts (not when the server
 * says so), failing on another port and past the 10 s limit, under 2 vCPUs and 2 GB where cgroups allow.
 * Nothing here asserts a speed: the bounds are causal (nothing accepts before it listens) or the platform's.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { detectLimits } from '../../metrics/measure/limits/detect.ts';
import { runCli, runClis, tempDir } from '../support/helpers.ts';

const detection = detectLimits();
const noCaps = detection.ok ? false : `no cgroups here: ${detection.reason}`;

interface Sample {
  cell: { framework: string; target: string; runtime: string; memory: number };
  ok: boolean;
  error?: string;
  marks?: { listen?: number; firstResponse: number };
  ownListen?: number;
  limits?: { memoryMB: number; outOfMemory: boolean };
}

const samplesOf = (out: string): Sample[] =>
  readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Sample);

/** A server outside the project that listens where AWS_LAMBDA_HTTP_ENDPOINT says, as AWS's pages show it. */
const ON_ENDPOINT = `const http = require('node:http');
const [host, port] = process.env.AWS_LAMBDA_HTTP_ENDPOINT.split(':');
http.createServer((req, res) => res.end(JSON.stringify({ port: process.env.PORT ?? null }))).listen(Number(port), host);
`;

test('metrics --target server,lambda-web runs the generated servers as both, the Web Functions probed from outside', () => {
  const out = path.join(tempDir(), 'run');
  const selection = ['--target', 'server,lambda-web', '-f', 'fastify,hono,express', '-r', '1,1000'];
  const args = ['run', ...selection, '--samples', '1', '--warmup', '0'];
  const r = runCli([...args, '--out', out], { timeoutMs: 600_000 });
  assert.equal(r.status, 0, r.stderr);
  const samples = samplesOf(out).filter((s) => s.ok);
  assert.equal(samples.length, 12, 'every cell of 3 frameworks × 2 route counts × 2 targets');
  const web = samples.filter((s) => s.cell.target === 'lambda-web');
  assert.equal(web.length, 6);
  for (const s of web) {
    assert.equal(s.cell.runtime, 'nodejs24.x');
    assert.equal(s.cell.memory, 0);
    assert.equal(typeof s.ownListen, 'number', 'its own listen mark is kept beside the accepted one');
    if (!noCaps) assert.equal(s.limits?.memoryMB, 2048, 'capped at 2 GB');
  }
  const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
  assert.match(summary, /## Lambda Web Functions: INIT against the 10 s limit/);
  assert.match(
    readFileSync(path.join(out, 'report.html'), 'utf8'),
    /<h2 id="web-functions">Lambda Web Functions: INIT against the 10 s limit/,
  );
  const csv = readFileSync(path.join(out, 'summary.csv'), 'utf8').split('\n')[0]!;
  assert.match(csv, /web_init_limit_margin_p95_ms/);
});

test("a user's server on the endpoint is measured unchanged; on another port, or too slow, it fails with the reason", async () => {
  const dir = tempDir();
  const write = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const good = write('server.js', ON_ENDPOINT);
  const wrong = write('wrong.js', "require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1');\n");
  const slow = write('slow.js', `setTimeout(() => {\n${ON_ENDPOINT}}, 10_500);\n`);
  // it says it is ready (a COLDSTART line naming the endpoint) a second before it listens
  const early = write(
    'early.js',
    `const port = Number(process.env.AWS_LAMBDA_HTTP_ENDPOINT.split(':')[1]);
const line = { v: 2, source: 'app', timeOrigin: performance.timeOrigin, marks: { start: performance.now(), listen: performance.now() },
  port, rss: 1, heapUsed: 1, runtime: 'node ' + process.version };
process.stdout.write('COLDSTART ' + JSON.stringify(line) + '\\n');
setTimeout(() => {\n${ON_ENDPOINT}}, 1000);\n`,
  );
  const measure = (file: string, name: string) => [
    'measure',
    '--entry',
    file,
    '--target',
    'lambda-web',
    '--samples',
    '1',
    '--warmup',
    '0',
    '--file-cache',
    'warm',
    '--allow-failures',
    '--out',
    path.join(dir, name),
  ];
  const results = await runClis(
    [measure(good, 'good'), measure(wrong, 'wrong'), measure(slow, 'slow'), measure(early, 'early')],
    2,
    300_000,
  );
  for (const r of results) assert.equal(r.status, 0, r.stderr);
  const [good1] = samplesOf(path.join(dir, 'good'));
  assert.equal(good1!.ok, true, good1!.error);
  assert.equal(good1!.cell.target, 'lambda-web');
  const [wrong1] = samplesOf(path.join(dir, 'wrong'));
  assert.match(wrong1!.error ?? '', /the server listened on .*, not on AWS_LAMBDA_HTTP_ENDPOINT \(127\.0\.0\.1:\d+\)/);
  const [slow1] = samplesOf(path.join(dir, 'slow'));
  assert.match(
    slow1!.error ?? '',
    /not accepting connections on AWS_LAMBDA_HTTP_ENDPOINT .* within 10 s, Lambda Web Functions' limit on INIT/,
  );
  const [early1] = samplesOf(path.join(dir, 'early'));
  assert.equal(early1!.ok, true, early1!.error);
  assert.ok(early1!.marks!.listen! >= 1000, `ready at ${early1!.marks!.listen} ms: when it accepted, not when it said so`);
  assert.ok(early1!.ownListen! < early1!.marks!.listen! - 500, 'its own mark is kept, before it');
});

test('the caps bind: past 2 GB fails with the memory reason, and the CPU quota is 2 vCPUs', { skip: noCaps }, async () => {
  const dir = tempDir();
  const quotaFile = path.join(dir, 'quota.txt');
  const hog = path.join(dir, 'hog.js');
  writeFileSync(hog, `const keep = [];\nfor (let i = 0; i < 40; i++) keep.push(Buffer.alloc(64 * 1024 * 1024, 1));\n${ON_ENDPOINT}`);
  // reads its own cgroup's CPU quota (v1: cpu.cfs_quota_us / cpu.cfs_period_us; v2: cpu.max) and writes the vCPUs
  const quota = path.join(dir, 'quota.js');
  writeFileSync(
    quota,
    `const fs = require('node:fs');
let cpus = 'unknown';
for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').trim().split('\\n')) {
  const [, controllers, where] = line.split(':');
  try {
    if (controllers === '') {
      const [q, p] = fs.readFileSync('/sys/fs/cgroup' + where + '/cpu.max', 'utf8').trim().split(' ');
      cpus = String(Number(q) / Number(p));
    } else if (controllers.split(',').includes('cpu')) {
      const roots = fs.readdirSync('/sys/fs/cgroup').map((d) => '/sys/fs/cgroup/' + d);
      const root = roots.find((d) => d.split('/').pop().split(',').includes('cpu'));
      const q = fs.readFileSync(root + where + '/cpu.cfs_quota_us', 'utf8');
      const p = fs.readFileSync(root + where + '/cpu.cfs_period_us', 'utf8');
      cpus = String(Number(q) / Number(p));
    }
  } catch {}
}
fs.writeFileSync(process.env.QUOTA_FILE, cpus);
${ON_ENDPOINT}`,
  );
  // four threads busy for 1.5 s of wall time before it listens: under the cap they get at most 2 vCPUs of it
  const busy = path.join(dir, 'busy.js');
  writeFileSync(
    busy,
    `const { Worker } = require('node:worker_threads');
const spin = 'const end = Date.now() + 1500; while (Date.now() < end) {}';
let left = 4;
for (let i = 0; i < 4; i++) new Worker(spin, { eval: true }).on('exit', () => { if (--left === 0) listen(); });
function listen() {
${ON_ENDPOINT}}
`,
  );
  const base = ['measure', '--target', 'lambda-web', '--samples', '1', '--warmup', '0', '--file-cache', 'warm', '--allow-failures'];
  const [hogRun, quotaRun, busyRun] = await runClis(
    [
      [...base, '--entry', hog, '--out', path.join(dir, 'hog')],
      [...base, '--entry', quota, '--env', `QUOTA_FILE=${quotaFile}`, '--out', path.join(dir, 'quota')],
      [...base, '--entry', busy, '--out', path.join(dir, 'busy')],
    ],
    1,
    300_000,
  );
  assert.equal(hogRun!.status, 0, hogRun!.stderr);
  assert.equal(quotaRun!.status, 0, quotaRun!.stderr);
  const [hog1] = samplesOf(path.join(dir, 'hog'));
  assert.equal(hog1!.ok, false);
  assert.match(hog1!.error ?? '', /out of memory at 2048 MB/);
  const [quota1] = samplesOf(path.join(dir, 'quota'));
  assert.equal(quota1!.ok, true, quota1!.error);
  assert.equal(readFileSync(quotaFile, 'utf8'), '2');
  // the CPU the cgroup used until INIT ended is at most 2 vCPUs × the time to the first answer (later) (on a machine of 2 cores this
  // holds without the cap too: the quota read above is what shows the cap there)
  assert.equal(busyRun!.status, 0, busyRun!.stderr);
  const [busy1] = samplesOf(path.join(dir, 'busy'));
  assert.equal(busy1!.ok, true, busy1!.error);
  const initCpuMs = (busy1!.limits as { initCpuMs?: number } | undefined)?.initCpuMs;
  assert.ok(initCpuMs !== undefined && initCpuMs > 0, 'the cgroup counted the CPU of INIT');
  assert.ok(
    initCpuMs <= 2 * busy1!.marks!.firstResponse * 1.05,
    `${initCpuMs} ms of CPU in ${busy1!.marks!.firstResponse} ms: over 2 vCPUs`,
  );
});
