import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { SyntaxValidator } from 'fast-xml-validator';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { curveChart, logTicks, phasesChart, renderSvg } from '../../metrics/report/charts.ts';
import { writeReport } from '../../metrics/report/write.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { tempDir } from '../support/in-process.ts';
import { cell, samplesOf, spread, writeRun } from '../support/synthetic.ts';

interface XmlNode {
  tag: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

/** Parse an SVG that must be well-formed XML into a small tree. */
function parseSvg(svg: string): XmlNode {
  // the validator throws, naming the line and column, on XML that is not well-formed
  assert.doesNotThrow(() => SyntaxValidator.validate(svg), 'not well-formed XML');
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', preserveOrder: true, trimValues: false }).parse(
    svg,
  ) as unknown[];
  const convert = (raw: Record<string, unknown>): XmlNode | undefined => {
    const tag = Object.keys(raw).find((k) => k !== ':@');
    if (!tag || tag === '#text') return undefined;
    const children = (raw[tag] as Record<string, unknown>[]).map(convert).filter((c): c is XmlNode => Boolean(c));
    const text = (raw[tag] as Record<string, unknown>[])
      .filter((c) => '#text' in c)
      .map((c) => String(c['#text']))
      .join('');
    return { tag, attrs: (raw[':@'] as Record<string, string> | undefined) ?? {}, children, text };
  };
  const root = (parsed as Record<string, unknown>[]).map(convert).find((n) => n?.tag === 'svg');
  assert.ok(root, 'an <svg> root');
  return root;
}

function all(node: XmlNode, predicate: (n: XmlNode) => boolean, found: XmlNode[] = []): XmlNode[] {
  if (predicate(node)) found.push(node);
  for (const child of node.children) all(child, predicate, found);
  return found;
}

/** The texts of every <text> inside a group of the given vega role (e.g. role-legend-label). */
function textsOfRole(root: XmlNode, role: string): string[] {
  return all(root, (n) => n.tag === 'g' && (n.attrs.class ?? '').split(' ').includes(role)).flatMap((g) =>
    all(g, (n) => n.tag === 'text').map((t) => t.text),
  );
}

function allText(root: XmlNode): string {
  return all(root, (n) => n.tag === 'text')
    .map((t) => t.text)
    .join('\n');
}

/** Line marks (one path per series) with the series name vega puts in their aria-label. */
function lineSeries(root: XmlNode): string[] {
  return all(root, (n) => n.tag === 'path' && n.attrs['aria-roledescription'] === 'line mark').map(
    (p) => /framework: (.+)$/.exec(p.attrs['aria-label'] ?? '')?.[1] ?? '?',
  );
}

function runOf(frameworks: string[], routes: number[], extra: Partial<Parameters<typeof cell>[2]> = {}): SampleRecord[] {
  return frameworks.flatMap((f, i) => routes.flatMap((n) => samplesOf(cell(f, n, extra), spread(50 * (i + 1) + n, 5))));
}

describe('charts: well-formed SVG, one series per framework', () => {
  const summaries = aggregate(runOf(['fastify', 'hono', 'node-http'], [1, 10, 100, 1000]));

  it('chart-firstresponse: title, axis titles with units and log scale, a legend entry and a line per framework', async () => {
    const root = parseSvg(await curveChart(summaries, 'firstResponse'));
    assert.deepEqual(textsOfRole(root, 'role-legend-label'), ['fastify', 'hono', 'node-http']);
    assert.deepEqual(lineSeries(root).sort(), ['fastify', 'hono', 'node-http']);
    const text = allText(root);
    assert.match(text, /Cold start to the first response vs route count/);
    assert.match(text, /routes \(N, log scale\)/);
    assert.match(text, /firstResponse: ms from spawn \(log scale\)/);
    assert.match(text, /95 % bootstrap CI/);
    // the CI band: one area per series
    assert.equal(all(root, (n) => n.tag === 'path' && n.attrs['aria-roledescription'] === 'area mark').length, 3);
  });

  it('chart-listen: the same for listen', async () => {
    const root = parseSvg(await curveChart(summaries, 'listen'));
    assert.deepEqual(textsOfRole(root, 'role-legend-label'), ['fastify', 'hono', 'node-http']);
    assert.match(allText(root), /listen: ms from spawn \(log scale\)/);
  });

  it('a series per framework and variant when the run varies the variant', async () => {
    const both = aggregate([
      ...runOf(['fastify', 'hono'], [1, 10, 100]),
      ...runOf(['fastify', 'hono'], [1, 10, 100], { variant: 'plain' }),
    ]);
    const root = parseSvg(await curveChart(both, 'firstResponse'));
    assert.deepEqual(textsOfRole(root, 'role-legend-label'), [
      'fastify [variant=plain]',
      'fastify [variant=validated]',
      'hono [variant=plain]',
      'hono [variant=validated]',
    ]);
    assert.equal(lineSeries(root).length, 4);
  });

  it('chart-phases: a bar per framework, the five phases in the legend', async () => {
    const root = parseSvg(await phasesChart(summaries, 1000));
    assert.deepEqual(textsOfRole(root, 'role-legend-label'), [
      'runtime boot',
      'framework import',
      'route registration',
      'listen',
      'first request',
    ]);
    assert.deepEqual(
      textsOfRole(root, 'role-axis-label').filter((t) => ['fastify', 'hono', 'node-http'].includes(t)),
      ['fastify', 'hono', 'node-http'],
    );
    assert.equal(all(root, (n) => n.tag === 'path' && n.attrs['aria-roledescription'] === 'bar').length, 15);
    assert.match(allText(root), /Where the cold start goes at N = 1000 routes/);
  });

  it('log axes get 1-2-5 ticks spanning the data', () => {
    assert.deepEqual(logTicks(57, 7000), [50, 100, 200, 500, 1000, 2000, 5000, 10000]);
    assert.deepEqual(logTicks(100, 100), [50, 100, 200]);
    assert.deepEqual(logTicks(0.3, 4), [0.2, 0.5, 1, 2, 5]);
  });

  it('no data is still a valid SVG that says so', async () => {
    const root = parseSvg(await curveChart([], 'firstResponse'));
    assert.match(allText(root), /no data/);
  });
});

describe('the report writes every output and summary.md points at them', () => {
  const samples = [
    ...runOf(['fastify', 'node-http'], [1, 10, 100, 500]),
    ...samplesOf(cell('hono', 10), [100, 101, 102, 103, 104, 105, 400]),
  ];

  it('charts, scaling.md, cost, phases, warnings and the ⚠ legend', async () => {
    const dir = writeRun(path.join(tempDir(), 'run'), samples, { samples: 5 });
    const warnings: string[] = [];
    const { written } = await writeReport(dir, { warn: (line) => warnings.push(line) });
    for (const file of ['summary.csv', 'chart-firstresponse.svg', 'chart-listen.svg', 'chart-phases.svg', 'scaling.md', 'summary.md']) {
      assert.ok(written.includes(file), file);
      assert.ok(existsSync(path.join(dir, file)), file);
    }
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(md, /!\[[^\]]+\]\(chart-firstresponse\.svg\)/);
    assert.match(md, /!\[[^\]]+\]\(chart-listen\.svg\)/);
    assert.match(md, /!\[[^\]]+\]\(chart-phases\.svg\)/);
    assert.match(md, /\[scaling\.md\]\(scaling\.md\)/);
    assert.match(md, /## Cost: \$ per million cold starts/);
    assert.match(md, /\| 10-startup-fastify-routes\.js \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| 60\.0 \|/, 'phase row');
    // the planted 400 ms sample: summary.md names the cell; warn() gets the one line that counts the cells
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^outliers \(MAD test\) in 1 of 9 cells; .*see Warnings in .*summary\.md$/);
    assert.match(md, /^- ⚠ outliers in 10-startup-hono-routes\.js \(MAD test\): .*firstResponse 1 of 7 \(400 ms/m);
    // 400/100 > 1.5: marked, with the legend line
    assert.match(md, /\| 10-startup-hono-routes\.js \| [\d.]+ ⚠ \|/);
    assert.match(md, /⚠ wide spread: .*max\/min > 1\.5/);
    // the fifth point of hono is missing: it has one N, so no fit, and scaling.md says so
    const scaling = readFileSync(path.join(dir, 'scaling.md'), 'utf8');
    assert.match(scaling, /hono firstResponse: 1 distinct route count; a fit needs at least 3/);
    // 4 route counts: a line, and no growth class (a curve needs 5)
    assert.match(scaling, /fastify firstResponse: a line through 4 route counts, .*growth not determined \(4 route counts\)/);
    parseSvg(readFileSync(path.join(dir, 'chart-phases.svg'), 'utf8'));
  });

  it('--phases-at must be a measured route count', async () => {
    const dir = writeRun(path.join(tempDir(), 'run'), samples);
    await assert.rejects(writeReport(dir, { phasesAt: 1000 }), /--phases-at: 1000 is not a route count of this run \(1, 10, 100, 500\)/);
    await writeReport(dir, { phasesAt: 10 });
    assert.match(readFileSync(path.join(dir, 'chart-phases.svg'), 'utf8'), /N = 10 routes/);
  });
});

describe('a chart stays well-formed XML whatever its labels hold (issue 37, class 6)', () => {
  it('an ESC, a BEL and a bidi override in a label become spaces; the SVG parses', async () => {
    const label = 'pkg\u001b[31m\u0007\u202eevil';
    const svg = await renderSvg({
      data: { values: [{ package: label, ms: 3 }] },
      mark: 'bar',
      encoding: { x: { field: 'ms', type: 'quantitative' }, y: { field: 'package', type: 'nominal' } },
    });
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(svg, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u202a-\u202e]/);
    assert.doesNotThrow(() => SyntaxValidator.validate(svg), 'not well-formed XML');
    assert.match(svg, /pkg \[31m {2}evil/);
  });
});
