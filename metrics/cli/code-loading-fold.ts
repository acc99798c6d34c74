/**
 * `npm run -s code-loading:fold` (issue 41), the parsing and printing of pipeline/code-loading-fold.ts:
 *
 *   npm run -s code-loading:fold -- --measurement ID [--notes TEXT] RUN...   fold the runs' split into the rows
 *   npm run -s code-loading:fold -- --fit                                    refit k and the leave-one-out errors
 *   (both at once: the fold, then the fit; --file FILE: another data file than the shipped one)
 *
 * It writes the data file as two-space JSON; `npx prettier --write FILE` then gives it its layout.
 * A maintainer's tool, not a command of the program: it is not in docs/reference/cli.md.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readCodeLoadingData, SHIPPED_CODE_LOADING_FILE } from '../calibration/lambda-code-loading.ts';
import { foldRun, looTableRows, refit, writeFolded } from '../pipeline/code-loading-fold.ts';
import { EXIT_BUG } from '../core/exit-codes.ts';

const rangeText = (ranges: Record<string, [number, number]>) =>
  Object.entries(ranges)
    .map(([id, [low, high]]) => `  ${id}: ${low} to ${high} %`)
    .join('\n');

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      measurement: { type: 'string' },
      notes: { type: 'string' },
      fit: { type: 'boolean' },
      file: { type: 'string' },
    },
  });
  const file = path.resolve(values.file ?? SHIPPED_CODE_LOADING_FILE);
  let data = readCodeLoadingData(file);
  if (positionals.length > 0 && !values.measurement) throw new Error('give --measurement ID (the id the folded rows name)');
  for (const dir of positionals) {
    const folded = foldRun(data, dir, values.measurement!, values.notes);
    data = folded.data;
    const names = [...new Set(folded.cells.map((c) => c.name))].join(', ') || 'none';
    process.stdout.write(`${dir}: ${folded.filled} rows filled from ${names}; ${folded.unused.length} cells matched no row\n`);
  }
  if (values.fit) {
    const before = data.fit;
    data = refit(data);
    process.stdout.write(`k: ${before.coefficient} -> ${data.fit.coefficient}\n`);
    process.stdout.write(`leave-one-out before:\n${rangeText(before.looErrorPct)}\nnow:\n${rangeText(data.fit.looErrorPct)}\n`);
    const beyond = Object.entries(data.fit.looErrorPct).filter(([, [l, h]]) => Math.max(-l, h) > data.fit.boundPct);
    if (beyond.length) process.stdout.write(`beyond the ${data.fit.boundPct} % bound: ${beyond.map(([id]) => id).join(', ')}\n`);
    process.stdout.write(`the leave-one-out table's rows (docs/guide/lambda.md, docs/findings/2026-11-26-code-loading-term.md):\n`);
    process.stdout.write(`${looTableRows(data).join('\n')}\n`);
  }
  if (positionals.length > 0 || values.fit) {
    writeFolded(file, data);
    process.stdout.write(`${file} written: npx prettier --write it\n`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`code-loading:fold: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(EXIT_BUG);
  }
}
