/**
 * `coldstart gate --attribute`: which npm package's loading grew, in instructions. After the verdict's rounds the
 * gate counts each side once more with `measure --count-packages` (measure/package-cuts.ts: a cut where CommonJS
 * loading enters and leaves a package), so the verdict's counts are those of plain rounds. Each package's own
 * instructions at base and head, their change, and whether that change is beyond the app's own threshold (the
 * total's: the larger of --threshold and 3 × its floor) of the app's total: a package's count has no A/A spread of
 * its own (one attributed round a side), so it is held to the share of the total the verdict holds the total to.
 * Pure but for reading the two run folders; gate.ts runs the round.
 */
import path from 'node:path';
import { markdownText, oneLine } from '../core/escape.ts';
import type { Cell } from '../core/cell.ts';
import { OWNER } from '../core/packages.ts';
import { readSamples } from '../store/samples-file.ts';
import { millions } from './gate-verdict.ts';

/** The measure option the attributed round adds. */
export const COUNT_PACKAGES_OPTION = '--count-packages';

/** Each app's own instructions per package (and `(app)`) in one attributed round's run folder. */
export type PackageRound = ReadonlyMap<string, Readonly<Record<string, number>>>;

/** `nameOf`: a cell's name in the gate (an app's, or a generated cell's framework and routes), as the verdict's rows have it. */
export function readPackageRound(runDir: string, nameOf: (cell: Cell) => string): PackageRound {
  const round = new Map<string, Record<string, number>>();
  for (const sample of readSamples(path.join(runDir, 'samples.jsonl'))) {
    if (!sample.ok || !sample.packages)
      throw new Error(`the attributed count failed in ${path.basename(runDir)}: ${sample.error ?? 'no packages'}`);
    round.set(nameOf(sample.cell), sample.packages);
  }
  return round;
}

export interface PackageChange {
  readonly app: string;
  /** an npm package's name, or `(app)` for everything outside a package's loading */
  readonly package: string;
  readonly base: number;
  readonly head: number;
  /** head − base, instructions */
  readonly change: number;
  /** beyond the app's limit: grew or shrank; else within */
  readonly verdict: 'grew' | 'shrank' | 'within';
}

export interface GateAttribution {
  readonly method: string;
  /** sorted by the size of the change, largest first (growth before shrinkage of the same size) */
  readonly packages: readonly PackageChange[];
  /** per app: the limit a package's change is held to (instructions), and the share of head's total counted to packages */
  readonly apps: readonly { readonly app: string; readonly limit: number; readonly attributedShare: number }[];
  /** why there are no packages: the attributed round failed (the verdict stands without it) */
  readonly reason?: string;
}

const ATTRIBUTION_METHOD =
  "one more counted round per side under measure --count-packages: a cut where a require's CommonJS loading enters and leaves an " +
  'npm package; each package its own instructions to the first answer (nested packages count to themselves)';

/** The attribution of a round that failed: no packages, its reason in one line. */
export function failedAttribution(reason: string): GateAttribution {
  return { method: ATTRIBUTION_METHOD, packages: [], apps: [], reason: oneLine(reason).slice(0, 300) };
}

/** The app's total at base and its threshold (a share), as the verdict judged them. */
export interface AppLimit {
  readonly app: string;
  readonly totalBase: number;
  readonly threshold: number;
}

const sum = (counts: Readonly<Record<string, number>>) => Object.values(counts).reduce((a, b) => a + b, 0);

export function packageAttribution(base: PackageRound, head: PackageRound, limits: readonly AppLimit[]): GateAttribution {
  const packages: PackageChange[] = [];
  const apps: GateAttribution['apps'][number][] = [];
  for (const { app, totalBase, threshold } of limits) {
    const b = base.get(app) ?? {};
    const h = head.get(app) ?? {};
    const limit = threshold * totalBase;
    for (const name of new Set([...Object.keys(b), ...Object.keys(h)])) {
      const change = (h[name] ?? 0) - (b[name] ?? 0);
      const verdict = change > limit ? 'grew' : change < -limit ? 'shrank' : 'within';
      packages.push({ app, package: name, base: b[name] ?? 0, head: h[name] ?? 0, change, verdict });
    }
    const total = sum(h);
    apps.push({ app, limit, attributedShare: total ? (total - (h[OWNER.app] ?? 0)) / total : 0 });
  }
  packages.sort(
    (x, y) =>
      Math.abs(y.change) - Math.abs(x.change) || y.change - x.change || x.app.localeCompare(y.app) || x.package.localeCompare(y.package),
  );
  return { method: ATTRIBUTION_METHOD, packages, apps };
}

/** The package that grew most beyond its app's limit, if one did. */
export function grewMost(attribution: GateAttribution): PackageChange | undefined {
  return attribution.packages.filter((p) => p.verdict === 'grew').sort((x, y) => y.change - x.change)[0];
}

const signed = (n: number) => `${n >= 0 ? '+' : '−'}${millions(Math.abs(n))}`;
const relative = (p: PackageChange) =>
  p.base === 0 ? 'new' : p.head === 0 ? 'gone' : `${p.change >= 0 ? '+' : '−'}${((Math.abs(p.change) / p.base) * 100).toFixed(2)} %`;
const named = (p: PackageChange) => (p.package === OWNER.app ? '(app): outside any package' : p.package);

/** The verdict area's line: the package that grew most (with a regression only). */
function packageVerdictLine(attribution: GateAttribution, regressed: boolean): string | undefined {
  if (!regressed) return undefined;
  const most = grewMost(attribution);
  const app = (p: PackageChange) => (attribution.apps.length > 1 ? ` in ${markdownText(p.app)}` : '');
  return most
    ? `**Grew most** (--attribute): **${markdownText(named(most))}**${app(most)}, ${signed(most.change)} M instructions ` +
        `(${relative(most)} of its own loading).`
    : "**Grew most** (--attribute): no package's loading grew beyond its app's limit.";
}

/** The folded table of gate.md, after the cells. */
function packageTable(attribution: GateAttribution): string[] {
  const several = attribution.apps.length > 1;
  const header = several
    ? [
        '| app | package | base (M instr.) | head (M instr.) | change (M instr.) | change | verdict |',
        '| --- | --- | ---: | ---: | ---: | ---: | --- |',
      ]
    : [
        '| package | base (M instr.) | head (M instr.) | change (M instr.) | change | verdict |',
        '| --- | ---: | ---: | ---: | ---: | --- |',
      ];
  const rows = attribution.packages.map(
    (p) =>
      `| ${several ? `${markdownText(p.app)} | ` : ''}${markdownText(p.package)} | ${millions(p.base)} | ${millions(p.head)} | ` +
      `${signed(p.change)} | ${relative(p)} | ${p.verdict} |`,
  );
  const shares = attribution.apps
    .map(
      (a) =>
        `${several ? `${markdownText(a.app)}: ` : ''}${(a.attributedShare * 100).toFixed(1)} % of head's total to the first answer ` +
        `attributed to packages, a change held to ±${millions(a.limit)} M`,
    )
    .join('; ');
  return [
    `<details><summary>Per package (--attribute): ${attribution.packages.length} rows; ${shares}</summary>`,
    '',
    ...header,
    ...rows,
    '',
    "Each package's own instructions while its CommonJS loading ran (the packages it loads count to themselves), from one more " +
      "counted round per side cut where a `require` enters and leaves a package; `(app)` is all the rest: Node's start, the " +
      "app's own files, listening and the first request. Modules loaded through `import` (ES modules) are not cut: their work " +
      "counts to the loading that was running, or to `(app)`. A change is within when it is under the app's total threshold of " +
      "the app's total (one attributed round a side has no spread of its own). The cuts add their own work to both sides alike. " +
      'The garbage collector runs where an allocation triggers it: a package that allocates more can take a collection ' +
      "into its own count that later work would have paid, and another owner's count (often `(app)`) then shrinks.",
    '',
    '</details>',
    '',
  ];
}

/**
 * gate.md with the attribution: the line after the verdict's heading, the table at the end. The verdict's markdown
 * (gate-verdict.ts) is left as it is written.
 */
export function withPackages(markdown: string, attribution: GateAttribution | undefined, regressed: boolean): string {
  if (!attribution) return markdown;
  const failed =
    attribution.reason === undefined ? undefined : `Per package (--attribute): not counted: ${markdownText(attribution.reason)}`;
  const line = failed && regressed ? `**${failed}**` : packageVerdictLine(attribution, regressed);
  const heading = markdown.indexOf('\n\n');
  const withLine = line && heading >= 0 ? `${markdown.slice(0, heading)}\n\n${line}${markdown.slice(heading)}` : markdown;
  return `${withLine}\n${(failed ? [failed, ''] : packageTable(attribution)).join('\n')}`;
}

/** $GITHUB_OUTPUT's line for the attribution: the package that grew most (empty when none did). */
export function packageOutputs(attribution: GateAttribution | undefined): string {
  if (!attribution) return '';
  // a folder's name under node_modules may hold anything: only a package name's characters reach the file
  return `grew-most=${(grewMost(attribution)?.package ?? '').replace(/[^\w@/.()-]/g, '_')}\n`;
}
