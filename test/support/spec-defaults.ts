/**
 * Finds a spec default applied again downstream of DEFAULT_SPEC (core/run-spec.ts): a field of a spec
 * group or a cell dimension read with `?? <default>` or `|| <default>`, or taken as a parameter (or
 * destructured) with a default value. A default is a literal (number, string, boolean, array or
 * object), an UPPER_CASE constant, or DEFAULT_SPEC itself. Read with TypeScript's parser, so a
 * comment or a string that mentions `?? 1` is not a finding.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export interface SpecDefault {
  file: string;
  line: number;
  text: string;
}

/** The spec groups of core/run-spec.ts whose fields are the spec's. */
const SPEC_INTERFACES = [
  'GeneratedSource',
  'AppsSource',
  'CellSpec',
  'PrecisionSpec',
  'SamplingSpec',
  'LimitSpec',
  'CostSpec',
  'OutputSpec',
  'RunSpec',
];

/** Every field name of the spec's groups, read from the source of core/run-spec.ts. */
export function specFieldNames(runSpecFile: string): Set<string> {
  const source = ts.createSourceFile(runSpecFile, readFileSync(runSpecFile, 'utf8'), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || !SPEC_INTERFACES.includes(node.name.text)) return;
    for (const member of node.members) if (member.name && ts.isIdentifier(member.name)) names.add(member.name.text);
  });
  // `kind` tells the two sources apart: it is never defaulted, and many other types have one
  names.delete('kind');
  return names;
}

function unwrap(node: ts.Expression): ts.Expression {
  let e = node;
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e)) e = e.expression;
  return e;
}

/** The field a read ends in: `spec.cells.memories` → memories, `cost.architectures?.[0]` → architectures. */
function fieldRead(node: ts.Expression): string | undefined {
  let e = unwrap(node);
  if (ts.isElementAccessExpression(e)) e = unwrap(e.expression);
  return ts.isPropertyAccessExpression(e) ? e.name.text : undefined;
}

function isDefaultValue(node: ts.Expression): boolean {
  const e = unwrap(node);
  if (ts.isPrefixUnaryExpression(e)) return isDefaultValue(e.operand);
  if (
    ts.isNumericLiteral(e) ||
    ts.isStringLiteral(e) ||
    ts.isNoSubstitutionTemplateLiteral(e) ||
    ts.isArrayLiteralExpression(e) ||
    ts.isObjectLiteralExpression(e) ||
    e.kind === ts.SyntaxKind.TrueKeyword ||
    e.kind === ts.SyntaxKind.FalseKeyword
  )
    return true;
  if (ts.isIdentifier(e)) return /^[A-Z][A-Z0-9_]+$/.test(e.text);
  if (ts.isPropertyAccessExpression(e)) return /^DEFAULT_SPEC\b/.test(e.getText()) || isDefaultValue(e.expression);
  if (ts.isConditionalExpression(e)) return isDefaultValue(e.whenTrue) && isDefaultValue(e.whenFalse);
  return false;
}

/** The spec defaults applied again in one file's text. */
export function findSpecDefaults(file: string, text: string, fields: ReadonlySet<string>): SpecDefault[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: SpecDefault[] = [];
  const add = (node: ts.Node) =>
    found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.getText().replace(/\s+/g, ' ') });
  const visit = (node: ts.Node): void => {
    if (
      ts.isBinaryExpression(node) &&
      (node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || node.operatorToken.kind === ts.SyntaxKind.BarBarToken)
    ) {
      const field = fieldRead(node.left);
      if (field && fields.has(field) && isDefaultValue(node.right)) add(node);
    }
    if ((ts.isParameter(node) || ts.isBindingElement(node)) && node.initializer && isDefaultValue(node.initializer)) {
      const name = ts.isBindingElement(node) && node.propertyName ? node.propertyName : node.name;
      if (ts.isIdentifier(name) && fields.has(name.text)) add(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
