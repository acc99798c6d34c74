/**
 * One exit code per meaning, in one table (metrics/core/exit-codes.ts): the README's table is written
 * from it, every exit of metrics/ and bin/ names one of its constants, and a bug exits apart from the
 * verdicts (issue 48).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { EXIT_CODES, exitCodesMarkdown } from '../../metrics/core/exit-codes.ts';
import { withExitCodes } from '../../metrics/tools/help-md.ts';
import { exitOfError } from '../../metrics/cli/main.ts';
import { EnvironmentError, ExitCodeError, UsageError } from '../../metrics/core/errors.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const NAMES = new Set(Object.keys(EXIT_CODES).map((name) => `EXIT_${name}`));

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(?:ts|js)$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** Every exit a file writes: `process.exit(X)`, `process.exitCode = X`, `new ExitCodeError(msg, X)`, as `file:line: X`. */
function exitsOf(file: string): { where: string; code: ts.Expression | undefined }[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { where: string; code: ts.Expression | undefined }[] = [];
  const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.getText() === 'process.exit') found.push({ where: at(node), code: node.arguments[0] });
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && node.left.getText() === 'process.exitCode')
      found.push({ where: at(node), code: node.right });
    if (ts.isNewExpression(node) && node.expression.getText() === 'ExitCodeError')
      found.push({ where: at(node), code: node.arguments?.[1] });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A bare number where a name of the table belongs (a conditional's branches and `??` are read through). */
function bareNumbers(code: ts.Expression | undefined): string[] {
  if (!code) return [];
  if (ts.isNumericLiteral(code)) return [code.text];
  if (ts.isConditionalExpression(code)) return [...bareNumbers(code.whenTrue), ...bareNumbers(code.whenFalse)];
  if (ts.isBinaryExpression(code)) return [...bareNumbers(code.left), ...bareNumbers(code.right)];
  if (ts.isParenthesizedExpression(code)) return bareNumbers(code.expression);
  return [];
}

test('every exit of metrics/ and bin/ names a code of the table, never a bare number', () => {
  const exits = [...sources('metrics'), ...sources('bin')].flatMap(exitsOf);
  assert.ok(exits.length > 30, `${exits.length} exits found: the reader is not blind`);
  const bare = exits.flatMap((e) => bareNumbers(e.code).map((n) => `${e.where}: ${n}`));
  assert.deepEqual(bare, []);
  // the names used are the table's (or a value computed from a run: a signal's, a child's, a pipeline's result)
  const named = exits.flatMap((e) => (e.code && ts.isIdentifier(e.code) && e.code.text.startsWith('EXIT_') ? [e] : []));
  for (const e of named)
    assert.ok(NAMES.has((e.code as ts.Identifier).text), `${e.where}: ${(e.code as ts.Identifier).text} is not in the table`);
});

test('one code per meaning, and a bug is not a verdict', () => {
  const codes = Object.values(EXIT_CODES).map((e) => e.code);
  assert.equal(new Set(codes).size, codes.length, 'no two meanings share a code');
  assert.notEqual(EXIT_CODES.BUG.code, EXIT_CODES.VERDICT.code);
  assert.equal(EXIT_CODES.VERDICT.code, 1, "compare --fail-above's regression stays 1, as CI gates expect");
});

test("the README's table is the table in code (npm run docs:cli writes it)", () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.equal(withExitCodes(readme), readme, 'README.md is stale: npm run docs:cli');
  assert.ok(readme.includes(exitCodesMarkdown()));
});

test("bin/preflight.js's own copies of the codes (it runs before TypeScript loads) are the table's", () => {
  const text = readFileSync(path.join(ROOT, 'bin', 'preflight.js'), 'utf8');
  const copies = [...text.matchAll(/^const (EXIT_\w+) = (\d+);$/gm)];
  assert.ok(copies.length >= 2, 'preflight keeps its codes as constants');
  const table: Record<string, number> = Object.fromEntries(Object.entries(EXIT_CODES).map(([name, e]) => [`EXIT_${name}`, e.code]));
  for (const [, name, code] of copies) assert.equal(Number(code), table[name!], name);
});

test('every error a command ends with maps to a code of the table; anything unexpected is a bug, not a verdict', () => {
  const codes = new Set<number>(Object.values(EXIT_CODES).map((e) => e.code));
  const cases: [unknown, number][] = [
    [new TypeError("Cannot read properties of undefined (reading 'x')"), EXIT_CODES.BUG.code],
    ['a thrown string', EXIT_CODES.BUG.code],
    [undefined, EXIT_CODES.BUG.code],
    [new UsageError('--routes: not a number'), EXIT_CODES.USAGE.code],
    [new EnvironmentError('cannot write x: ENOSPC'), EXIT_CODES.ENVIRONMENT.code],
    [Object.assign(new Error('EACCES'), { code: 'EACCES', path: '/x', syscall: 'open' }), EXIT_CODES.ENVIRONMENT.code],
    [new ExitCodeError('AWS refused', EXIT_CODES.AWS_ACCESS.code), EXIT_CODES.AWS_ACCESS.code],
  ];
  for (const [error, expected] of cases) {
    const { code, line } = exitOfError(error);
    assert.equal(code, expected, String(error));
    assert.ok(codes.has(code));
    assert.ok(line && !line.includes('\n'), 'one line');
  }
  assert.match(exitOfError(new TypeError('boom')).line ?? '', /^internal error: boom$/);
});
