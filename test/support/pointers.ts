/**
 * The pointers of generated text (summary.md, levers.md, report.html, the terminal's lines, skip
 * messages) and whether each resolves: a documentation file that exists, and the section it names.
 * What counts as a pointer:
 * - a path of the project's documentation, `docs/…/x.md` or `README.md`, with an optional `#anchor`
 *   (a heading's GitHub anchor) or a quoted section title right after it (`docs/guide/lambda.md ("Tails
 *   of the estimate")`: a heading, or a bold lead-in `**Title`, that starts with it);
 * - `see Title in docs/…/x.md`: the same, a heading or bold lead-in that starts with Title;
 * - "README" named otherwise (`see the README`, `Building mion in the README`): only `the README's
 *   section "X"` resolves, to a heading of README.md; anything else names no section and is dead;
 * - in a run folder's files: a markdown link `[…](target)` or an `href="target"` outside the page's
 *   scripts, to a file of the folder and, with `#anchor`, a heading of it (or an id of the page);
 *   and `see X in summary.md`, `"X" in summary.md`, `summary.md's X section`: a heading of that file
 *   starting with X.
 * Used by test/unit/generated-pointers.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** GitHub's anchor of a heading (github-slugger), as test/unit/docs-links.test.ts makes them. */
export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** A markdown file's headings (text) and their anchors (with GitHub's -1, -2 for repeats). */
function headingsOf(text: string): { titles: string[]; anchors: Set<string> } {
  const titles: string[] = [];
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    titles.push(heading!.trim());
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return { titles, anchors };
}

/** A section title resolves to a heading, or a bold lead-in, that starts with it (case and code marks aside). */
function hasSection(text: string, title: string): boolean {
  const plain = (s: string) => s.replace(/[`*]/g, '').toLowerCase().trim();
  const want = plain(title);
  const { titles } = headingsOf(text);
  if (titles.some((t) => plain(t).startsWith(want))) return true;
  return [...prose(text).matchAll(/\*\*([^*]+)\*\*/g)].some(([, bold]) => plain(bold!).startsWith(want));
}

export interface Found {
  /** the pointer as written */
  pointer: string;
  /** why it does not resolve; undefined when it does */
  dead?: string;
}

const DOC = /(?<![\w/.-])((?:docs\/[\w./-]+|README|CONTRIBUTING)\.md)(#[\w-]+)?(?:\s*(?:\(|, |'s section )?["“]([^"”]+)["”]\)?)?/g;
const SECTION_IN_DOC = /see ["“]?([A-Z][^"”]*?)["”]? in ((?:docs\/[\w./-]+|README|CONTRIBUTING)\.md)\b/g;
// a package's own README (`@fastify/aws-lambda README`) is not this project's
const README = /(?<!@[\w.-]+\/[\w.-]+ )\bREADME(?!\.(?:md|txt))(?:'s section ["“]([^"”]+)["”])?/g;
const RUN_SECTION =
  /(?:see ([A-Z][\w -]*?)|["“]([^"”]+)["”]) in (?:\S*\/)?(summary\.md|levers\.md)\b|(summary\.md|levers\.md)'s ([\w -]+?) section/g;

/** The documentation pointers of `text`, resolved against the project at `root`. */
export function docPointers(text: string, root: string): Found[] {
  const found: Found[] = [];
  for (const match of text.matchAll(DOC)) {
    const [pointer, file, anchor, section] = match as unknown as [string, string, string | undefined, string | undefined];
    const at = path.join(root, file);
    if (!existsSync(at)) {
      found.push({ pointer, dead: `no file ${file}` });
      continue;
    }
    const body = readFileSync(at, 'utf8');
    if (anchor && !headingsOf(body).anchors.has(anchor.slice(1))) found.push({ pointer, dead: `no heading ${anchor} in ${file}` });
    else if (section && !hasSection(body, section)) found.push({ pointer, dead: `no section "${section}" in ${file}` });
    else found.push({ pointer });
  }
  for (const match of text.matchAll(SECTION_IN_DOC)) {
    const [pointer, section, file] = match as unknown as [string, string, string];
    const at = path.join(root, file);
    if (existsSync(at) && !hasSection(readFileSync(at, 'utf8'), section))
      found.push({ pointer, dead: `no section "${section}" in ${file}` });
  }
  for (const match of text.matchAll(README)) {
    const [pointer, section] = match as unknown as [string, string | undefined];
    if (/README\.md/.test(text.slice(match.index, match.index + 10))) continue;
    if (section === undefined)
      found.push({ pointer: text.slice(Math.max(0, match.index - 40), match.index + 20), dead: 'names no section of the README' });
    else if (!hasSection(readFileSync(path.join(root, 'README.md'), 'utf8'), section))
      found.push({ pointer, dead: `no section "${section}" in README.md` });
    else found.push({ pointer });
  }
  return found;
}

/** The pointers of one file of a run folder (markdown links, hrefs, sections of its files) and of its documentation. */
export function runFilePointers(file: string, root: string): Found[] {
  const dir = path.dirname(file);
  let text = readFileSync(file, 'utf8');
  const found: Found[] = [];
  const html = file.endsWith('.html');
  if (html) {
    // the page's own scripts (vega's bundle, the data) are code, not text
    text = text.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '').replace(/<style\b[^>]*>[\s\S]*?<\/style>/g, '');
    const ids = new Set([...text.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]!));
    for (const [, target] of text.matchAll(/\bhref="([^"]+)"/g)) found.push(linkTo(target!, dir, ids));
  } else {
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) found.push(linkTo(target!, dir, headingsOf(text).anchors));
  }
  found.push(...runSections(text, dir), ...docPointers(html ? text.replace(/<[^>]+>/g, '') : text, root));
  return found;
}

function linkTo(target: string, dir: string, own: Set<string>): Found {
  if (/^[a-z]+:/i.test(target)) return { pointer: target };
  const [file = '', anchor] = target.split('#');
  if (!file) return anchor !== undefined && own.has(anchor) ? { pointer: target } : { pointer: target, dead: 'no such anchor here' };
  const at = path.join(dir, file);
  if (!existsSync(at)) return { pointer: target, dead: `no file ${file} in the run folder` };
  if (anchor !== undefined && file.endsWith('.md') && !headingsOf(readFileSync(at, 'utf8')).anchors.has(anchor))
    return { pointer: target, dead: `no heading #${anchor} in ${file}` };
  return { pointer: target };
}

/** `see X in summary.md` and its kin, in the text of a run folder's file or a line a run printed about `dir`. */
export function runSections(text: string, dir: string): Found[] {
  const found: Found[] = [];
  for (const match of text.matchAll(RUN_SECTION)) {
    const pointer = match[0];
    const section = (match[1] ?? match[2] ?? match[5])!;
    const file = (match[3] ?? match[4])!;
    const at = path.join(dir, file);
    if (!existsSync(at)) found.push({ pointer, dead: `no ${file} in the run folder` });
    else if (!hasSection(readFileSync(at, 'utf8'), section)) found.push({ pointer, dead: `no section "${section}" in ${file}` });
    else found.push({ pointer });
  }
  return found;
}

/** Whether a node is a skip reason of node:test: `{ skip: … }`, `t.skip(…)`, or a variable named for one (`const skip = …`). */
function isSkip(node: ts.Node): boolean {
  if (ts.isPropertyAssignment(node) || ts.isVariableDeclaration(node)) return /skip/i.test(node.name.getText());
  if (ts.isCallExpression(node)) return /(^|\.)skip$/.test(node.expression.getText());
  return false;
}

/**
 * Every string literal and template text of a TypeScript file (comments and regular expressions left
 * out); with `skipsOnly`, only those inside a skip reason (a test's own names and assertions are not
 * text the tool shows).
 */
export function stringsOf(file: string, skipsOnly = false): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const strings: string[] = [];
  const visit = (node: ts.Node, inSkip: boolean) => {
    const keep = !skipsOnly || inSkip;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (keep) strings.push(node.text);
    } else if (ts.isTemplateExpression(node) && keep) {
      // the pieces joined as the text reads (a substitution as a placeholder)
      strings.push([node.head.text, ...node.templateSpans.map((s) => `\u2026${s.literal.text}`)].join(''));
    }
    ts.forEachChild(node, (child) => visit(child, inSkip || isSkip(node)));
  };
  visit(source, false);
  return strings;
}
