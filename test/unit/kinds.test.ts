/**
 * Target and measure are objects (metrics/core/kinds.ts): every module asks them what a target or a
 * measure does, and none compares a cell's target or measure with a name. A comparison written
 * elsewhere is a branch a new target (issue 49's `lambda-web`) or measure would have to find and add to.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CELL_TARGETS, MEASURES, TARGETS, generatedTarget, fileTargetOf, isCounted } from '../../metrics/core/dimensions.ts';
import { MEASURE_KINDS, TARGET_KINDS, isLocalHandler, measureKind, targetKind } from '../../metrics/core/kinds.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** The modules of the target and measure objects: the only ones that may name them in a comparison. */
const KIND_MODULES = new Set(['metrics/core/kinds.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NAMES = [...CELL_TARGETS, ...MEASURES].map(escape).join('|');
const QUOTED = `['"\`](?:${NAMES})['"\`]`;
/** `x === 'lambda'`, `'instructions' !== m`, `case 'server':`, `.includes('time')`, `=== AWS_LAMBDA_TARGET`, `=== COUNTED_MEASURE`. */
const COMPARISONS = new RegExp(
  [
    `[=!]==?\\s*${QUOTED}`,
    `${QUOTED}\\s*[=!]==?`,
    `case\\s+${QUOTED}\\s*:`,
    `\\.includes\\(\\s*${QUOTED}\\s*\\)`,
    `[=!]==?\\s*(?:AWS_LAMBDA_TARGET|COUNTED_MEASURE|TIMED_MEASURE)\\b`,
  ].join('|'),
  'g',
);

/** Where a target's or a measure's name is compared in `file`, as `file:line: text`. */
function comparisons(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(COMPARISONS)].map((m) => `${file}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
}

test('no module outside kinds.ts compares a target or a measure with its name', () => {
  const found = sourceFiles('metrics')
    .filter((f) => !KIND_MODULES.has(f))
    .flatMap(comparisons);
  assert.deepEqual(found, []);
});

test('the grep finds a comparison when one is written (the check is not blind)', () => {
  const sample = [
    "if (cell.target === 'lambda') x();",
    "measure !== 'instructions'",
    "case 'server':",
    "targets.includes('time')",
    'a === AWS_LAMBDA_TARGET',
  ];
  for (const line of sample) assert.equal([...line.matchAll(COMPARISONS)].length, 1, line);
  assert.equal([..."const target = 'lambda';".matchAll(COMPARISONS)].length, 0);
});

test('every target and every measure of the table has its object, and nothing else does', () => {
  assert.deepEqual(Object.keys(TARGET_KINDS).sort(), [...CELL_TARGETS].sort());
  assert.deepEqual(Object.keys(MEASURE_KINDS).sort(), [...MEASURES].sort());
  for (const [name, kind] of Object.entries(TARGET_KINDS)) assert.equal(kind.name, name);
  for (const [name, kind] of Object.entries(MEASURE_KINDS)) assert.equal(kind.name, name);
  // each object's file target is a generated target, and each generated target is its own file's
  for (const target of CELL_TARGETS) assert.ok((TARGETS as readonly string[]).includes(fileTargetOf(target)), target);
  for (const target of TARGETS) assert.equal(generatedTarget(target), target);
});

test('the objects answer what the modules used to ask by name', () => {
  const [server, lambda, web] = TARGETS;
  assert.deepEqual(
    CELL_TARGETS.map((t) => [t, targetKind(t).handler, targetKind(t).ready, targetKind(t).local, targetKind(t).plain, isLocalHandler(t)]),
    [
      [server, false, 'listen', true, true, false],
      [lambda, true, 'init', true, false, true],
      [web, false, 'listen', true, false, false],
      ['aws-lambda', true, 'init', false, false, false],
    ],
  );
  // a Web Function: the server's files rewritten, capped at 2 vCPUs and 2 GB, 10 s to listen, nodejs24.x only
  assert.deepEqual(
    [targetKind(web).derivedFrom, targetKind(web).caps, targetKind(web).readyLimitMs, targetKind(web).runtimeLine],
    [server, { memoryMB: 2048, cpus: 2 }, 10_000, 'nodejs24.x'],
  );
  assert.throws(() => generatedTarget('aws-lambda'), /has no generated file/);
  assert.throws(() => targetKind('lambda-webx'), /unknown target "lambda-webx"/);
  assert.throws(() => targetKind('constructor'), /unknown target/);
  assert.deepEqual(
    MEASURES.map((m) => [m, measureKind(m).counted, measureKind(m).noun, isCounted({ measure: m })]),
    [
      ['time', false, 'timed', false],
      ['instructions', true, 'counted', true],
    ],
  );
  assert.equal(measureKind('instructions').show(1234567.4), '1,234,567');
  assert.equal(measureKind('time').show(12.345), '12.3');
});
