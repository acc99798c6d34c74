/**
 * The dimension table (metrics/core/dimensions.ts) is the only list of the dimensions: no other file
 * of metrics/ or generators/ declares a dimension's flag, lists two or more of a dimension's values,
 * or lists three or more dimension names. A list written elsewhere is one a new row or value does not
 * reach (two cells then merge, a flag's help goes stale): take it from the table instead.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DIMENSIONS, RUN_DIMENSIONS, type Dimension } from '../../metrics/core/dimensions.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/**
 * The table's own files (the rows, their value lists, the run dimensions), and the platform facts it
 * takes two value lists from (the Lambda architectures and runtime lines live with the rest of what
 * AWS documents).
 */
const SOURCES_OF_THE_TABLE = new Set([
  'metrics/core/dimensions.ts',
  'metrics/core/dimension-values.ts',
  'metrics/core/run-dimensions.ts',
  'metrics/core/lambda-platform.ts',
  'metrics/core/kinds.ts',
]);

const ROWS = { ...DIMENSIONS, ...RUN_DIMENSIONS } as unknown as Record<string, Dimension<string | number>>;

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (relative.endsWith('.ts') && !SOURCES_OF_THE_TABLE.has(relative)) files.push(relative);
    }
  };
  walk('metrics');
  walk('generators');
  return files;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const quoted = (words: readonly string[]) => `['"\`](?:${words.map(escape).join('|')})['"\`]`;

/** Where `pattern` matches in `text`, as `file:line: match`. */
function hits(file: string, text: string, pattern: RegExp, keep: (match: RegExpMatchArray) => boolean = () => true): string[] {
  return [...text.matchAll(pattern)].filter(keep).map((m) => `${file}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
}

/**
 * A flag's usage as the table declares it (`--runtime <list>`, `-f, --frameworks <list>`): written
 * anywhere else, it is a second declaration.
 */
function flagDeclarations(file: string, text: string, rows: Record<string, Dimension<string | number>>): string[] {
  return Object.values(rows).flatMap((row) =>
    row.flags.flatMap((flag) => hits(file, text, new RegExp(`['"\`](?:-\\w, )?${escape(`${flag.flag} ${flag.arg}`)}`, 'g'))),
  );
}

/** Two different values of one closed dimension in a row (`'validated', 'plain'`, `'x' | 'y'`): a copy of its list. */
function valueLists(file: string, text: string, rows: Record<string, Dimension<string | number>>): string[] {
  return Object.values(rows).flatMap((row) => {
    if (row.values === 'open') return [];
    const values = row.values.filter((v): v is string => typeof v === 'string');
    if (values.length < 2) return [];
    const pair = new RegExp(`(${quoted(values)})\\s*[,|]\\s*(${quoted(values)})`, 'g');
    return hits(file, text, pair, (m) => m[1] !== m[2]);
  });
}

/** Three dimension names in a row (`'runtime', 'build', 'compileCache'`): a copy of the table's rows. */
function nameLists(file: string, text: string, names: readonly string[]): string[] {
  const name = quoted(names);
  return hits(file, text, new RegExp(`${name}\\s*[,|]\\s*${name}\\s*[,|]\\s*${name}`, 'g'));
}

test('no file but the table declares a dimension flag, or lists its values or the dimension names', () => {
  const found = sourceFiles().flatMap((file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    return [...flagDeclarations(file, text, ROWS), ...valueLists(file, text, ROWS), ...nameLists(file, text, Object.keys(DIMENSIONS))];
  });
  assert.deepEqual(found, [], `lists outside core/dimensions.ts:\n${found.join('\n')}`);
});

test('the scan finds each kind of list (so an empty result means none, not a blind scan)', () => {
  assert.deepEqual(flagDeclarations('x.ts', `new Option('--compile-cache <list>', 'help')`, ROWS), ["x.ts:1: '--compile-cache <list>"]);
  assert.deepEqual(flagDeclarations('x.ts', `new Option('-f, --frameworks <list>')`, ROWS), ["x.ts:1: '-f, --frameworks <list>"]);
  // another command's one-value option of the same name is its own flag
  assert.deepEqual(flagDeclarations('x.ts', `new Option('--arch <arch>')`, ROWS), []);
  assert.deepEqual(valueLists('x.ts', `const V = ['validated', 'plain'];`, ROWS), ["x.ts:1: 'validated', 'plain'"]);
  assert.deepEqual(valueLists('x.ts', `type S = 'flat' | 'params';`, ROWS), ["x.ts:1: 'flat' | 'params'"]);
  assert.deepEqual(valueLists('x.ts', `if (x === 'plain') return ['plain'];`, ROWS), []);
  assert.deepEqual(nameLists('x.ts', `['runtime', 'build', 'compileCache']`, Object.keys(DIMENSIONS)), [
    "x.ts:1: 'runtime', 'build', 'compileCache'",
  ]);
  assert.deepEqual(nameLists('x.ts', `d !== 'framework' && d !== 'routes'`, Object.keys(DIMENSIONS)), []);
});
