/**
 * results/index.html: the published run folders (results/published/<name>/) as one sortable table,
 * each linked to its report.html and summary.md, with what its meta.json says (when it ran, the
 * command, frameworks and route counts, the machine and its load). Self-contained like report.html
 * (style and script inline, nothing fetched); every text from outside is escaped and every folder
 * name is a link path encoded as one; the same folders give the same bytes.
 */
import type { RunMeta } from '../core/meta.ts';
import { tableHtml, type TableRow } from './html-tables.ts';
import { runLoad } from './markdown.ts';
import { pageAsset, pageHead } from './page-assets.ts';

export interface PublishedRun {
  /** the folder's name under results/published/ */
  name: string;
  meta: RunMeta | undefined;
  /** which of report.html and summary.md the folder holds */
  files: string[];
}

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'";

/** A list of meta.json's spec (frameworks, routes) as text, when there is one. */
function listOf(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(', ') : '–';
}

function runRow(run: PublishedRun): TableRow {
  const { meta } = run;
  const load = runLoad(meta);
  // the frameworks and routes of generated files or of REPORT lines imported; a run of apps has none
  const source = meta?.spec.source;
  const selection = source && source.kind !== 'apps' ? source : undefined;
  const links = run.files.map((file) => ({ href: `published/${encodeURIComponent(run.name)}/${file}`, text: file }));
  return {
    cells: [
      { text: run.name },
      { text: meta?.startedAt ?? '–' },
      { text: meta ? listOf(selection?.frameworks ?? Object.keys(meta.frameworks)) : '–' },
      { text: meta ? listOf(selection?.routes) : '–' },
      { text: meta ? `${meta.machine.os} | ${meta.machine.cores} vCPUs | ${meta.machine.cpu}` : '–' },
      load ? { text: load.during.load1.median.toFixed(2), sort: load.during.load1.median } : { text: '–' },
      { text: meta?.command ?? '–' },
      { text: run.files.join(' '), links },
    ],
  };
}

/** The index page of results/published/. */
export function resultsIndexHtml(runs: PublishedRun[]): string {
  const headers = ['run', 'started', 'frameworks', 'routes', 'machine', 'load (median)', 'command', 'report'];
  const body = runs.length
    ? tableHtml('runs', headers, runs.map(runRow))
    : '<p class="note">No run is published yet. A run folder copied to results/published/&lt;date&gt;-&lt;name&gt;/ ' +
      'is listed here after <code>npm run results:index</code>.</p>';
  return `${[
    ...pageHead(CSP, 'coldstart: published runs'),
    '<h1>coldstart: published runs</h1>',
    '<p class="note">Each run folder holds samples.jsonl and meta.json, from which <code>npm run report -- DIR</code> ' +
      'rebuilds its report byte for byte; open its report.html for the charts. Click a header to sort.</p>',
    body,
    `<script>\n${pageAsset('table-sort.js')}</script>`,
    '</body>',
    '</html>',
  ].join('\n')}\n`;
}
