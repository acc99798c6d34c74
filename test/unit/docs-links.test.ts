/**
 * Every relative link of the README, CONTRIBUTING, CHANGELOG and docs/ names a file that exists, and
 * every #anchor a heading of that file (as GitHub makes anchors: lower case, punctuation dropped,
 * spaces as hyphens). Moving a page or renaming a heading must not leave a dead link. No process.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function markdownFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => path.join('docs', file));
  return ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...docs].filter((file) => existsSync(path.join(ROOT, file))).sort();
}

/** The text outside fenced code blocks, where a `](…)` is a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor of a heading (github-slugger): lower case, only letters, digits, `_`, `-` and spaces, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(readFileSync(path.join(ROOT, file), 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n ? `${base}-${n}` : base);
  }
  return result;
}

describe('the documentation links', () => {
  const files = markdownFiles();

  it('finds the pages', () => {
    assert.ok(files.includes('README.md') && files.some((file) => file.startsWith(path.join('docs', 'guide'))), files.join(', '));
  });

  it('every relative link and anchor resolves', () => {
    const dead: string[] = [];
    for (const file of files) {
      for (const [, target] of prose(readFileSync(path.join(ROOT, file), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [link = '', anchor] = target!.split('#');
        const linked = link ? path.normalize(path.join(path.dirname(file), link)) : file;
        if (!existsSync(path.join(ROOT, linked))) dead.push(`${file}: ${target} (no file)`);
        else if (anchor !== undefined && linked.endsWith('.md') && !anchors(linked).has(anchor))
          dead.push(`${file}: ${target} (no heading)`);
      }
    }
    assert.deepEqual(dead, []);
  });

  it('makes anchors as GitHub does', () => {
    assert.equal(
      slug('Spreading counted runs over machines: `--shard` and `merge`'),
      'spreading-counted-runs-over-machines---shard-and-merge',
    );
    assert.equal(slug("The managed runtime's start and a new sandbox"), 'the-managed-runtimes-start-and-a-new-sandbox');
  });
});
