/**
 * The rules every output format keeps whatever text went in (test/unit/escape.test.ts on fixed hostile
 * strings, test/unit/hostile-fuzz.test.ts on generated ones).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { SyntaxValidator } from 'fast-xml-validator';

/** Markdown without its code spans (CommonMark: a run of n backticks up to the next run of exactly n), whose text is inert. */
function withoutCodeSpans(markdown: string): string {
  let out = '';
  let at = 0;
  while (at < markdown.length) {
    const open = /`+/g;
    open.lastIndex = at;
    const start = open.exec(markdown);
    if (!start) break;
    const close = new RegExp(`(?<!\`)${start[0]}(?!\`)`, 'g');
    close.lastIndex = start.index + start[0].length;
    const end = close.exec(markdown);
    if (!end) break;
    out += markdown.slice(at, start.index);
    at = end.index + end[0].length;
  }
  return out + markdown.slice(at);
}

/** What a rendered summary.md must never hold, whatever went into it. */
export function assertInert(markdown: string): void {
  const text = withoutCodeSpans(markdown);
  assert.doesNotMatch(text, /<script|<img|<b>/i, 'raw HTML');
  assert.doesNotMatch(text, /(?<!\\)\]\(javascript:/i, 'a javascript: link');
  assert.doesNotMatch(markdown, /^# injected/m, 'an injected heading');
}

/**
 * Every file a report writes, checked for its own format whatever went in: markdown inert, SVG
 * well-formed with no script or image, CSV rectangular with no formula a spreadsheet would run, JSON
 * parsed, HTML holding no hostile tag verbatim and no javascript: address, and no control character
 * (a terminal escape) or bidi override anywhere. A new output
 * format is checked here the day it is written (an unknown extension fails).
 */
export function assertEveryOutputInert(dir: string): void {
  const files = readdirSync(dir).filter((f) => !f.startsWith('.') && f !== 'samples.jsonl' && f !== 'meta.json');
  assert.ok(files.length > 0);
  for (const file of files) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(text, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202e]/, `${file}: a control character or a bidi override`);
    const extension = path.extname(file);
    if (extension === '.md') assertInert(text);
    else if (extension === '.svg') {
      assert.doesNotThrow(() => SyntaxValidator.validate(text), `${file}: not well-formed XML`);
      assert.doesNotMatch(text, /<script|<img|javascript:/i, file);
    } else if (extension === '.csv') {
      const rows: string[][] = parse(text);
      assert.ok(
        rows.every((row) => row.length === rows[0]!.length),
        `${file}: every row has the header's columns`,
      );
      for (const cell of rows.flat()) assert.doesNotMatch(cell, /^[=+@]|^-[^\d.]/, `${file}: a formula a spreadsheet would run`);
    } else if (extension === '.json') assert.doesNotThrow(() => JSON.parse(text) as unknown, file);
    else if (extension === '.html') {
      // markdown syntax is plain text in HTML: what matters is a tag or a javascript: address
      for (const hostile of ['<script>alert(1)', '<img src=x', '<b>bold']) {
        assert.ok(!text.includes(hostile), `${file}: holds ${JSON.stringify(hostile)} verbatim`);
      }
      assert.doesNotMatch(text, /(href|src)\s*=\s*["']?\s*javascript:/i, `${file}: a javascript: address`);
    } else assert.fail(`${file}: an output format this test does not check yet`);
  }
}
