/**
 * Package folder names and failure reasons come from outside the tool (whoever publishes a package
 * names its folder): attribution.md and summary.md's section show them escaped for markdown, never raw.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeAttribution } from '../../metrics/store/attribution-file.ts';
import type { AttributionFile } from '../../metrics/core/attribution.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import { attributionMarkdown, attributionSection } from '../../metrics/report/attribution.ts';
import type { ReportContext } from '../../metrics/report/contract.ts';

const HOSTILE = ['<img src=x onerror=alert(1)>', '[link](http://evil.example)', 'a|b', 'tick`s', 'line\nbreak\u001b[31m', '**bold**'];

function fileWith(names: string[]): AttributionFile {
  return {
    version: 1,
    method: { profiler: 'V8 CPU profiler', intervalUs: 100 },
    cells: [
      {
        cell: makeCell({ framework: 'fastify', variant: 'validated', routes: 10 }),
        ok: true,
        firstResponseMs: 50,
        attribution: {
          profiledMs: 100,
          busyMs: 80,
          samples: 800,
          packages: names.map((name, i) => ({ name, selfMs: 10 - i, inclusiveMs: 20 - i, initSelfMs: 5 })),
          modules: names.map((name, i) => ({ file: `${name}/index.js`, owner: name, loadMs: 5 - i / 10 })),
          init: { profiledMs: 60, busyMs: 50 },
        },
      },
      { cell: makeCell({ framework: 'express', variant: 'validated', routes: 10 }), ok: false, reason: '<b>crashed</b> | `rm -rf`' },
    ],
  };
}

/** The text without its code spans (markdown shows them verbatim): an unescaped fence of n backticks to the next run of exactly n. */
function outsideCode(text: string): string {
  return text.replace(/(?<![\\`])(`+)[\s\S]*?(?<!`)\1(?!`)/g, '');
}

function render(names: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'coldstart-attr-'));
  try {
    writeAttribution(dir, fileWith(names));
    const context = { dir } as ReportContext;
    const section = attributionSection(context);
    assert.ok(section);
    return `${attributionMarkdown(context)}\n${section.body}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('attribution reports escape outside text', () => {
  const text = render(HOSTILE);
  it('writes no raw HTML tag', () => {
    assert.doesNotMatch(outsideCode(text), /<img|<b>/);
  });
  it('makes no link of a package name', () => {
    assert.doesNotMatch(outsideCode(text), /(?<!\\)\]\(http/);
  });
  it('keeps every table row one line with its own columns', () => {
    for (const line of text.split('\n').filter((l) => l.startsWith('| '))) {
      assert.ok(!line.includes('\u001b'), `control byte in: ${line}`);
      const cells = line.replace(/\\\|/g, '').split('|').length;
      const header = text.split('\n').find((l) => l.startsWith('| ') && l.split('|').length === cells);
      assert.ok(header, `row with a column count no header has: ${line}`);
    }
  });
  it('keeps ordinary package names as they are', () => {
    const plain = render(['fastify', '@fastify/ajv-compiler', '(app)']);
    assert.match(plain, /fastify 12\.5 %/);
    assert.match(plain, /`@fastify\/ajv-compiler`/);
  });
});
