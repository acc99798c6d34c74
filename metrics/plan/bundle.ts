/**
 * The `bundle` build: a generated file and everything it requires turned into ONE CommonJS file by
 * esbuild (platform node, no minifying, targeting the runtime), as a serverless deploy ships it;
 * `bundle-min` is the same file minified. Bundles live in generated/bundle/<target>/<the file's path
 * under generated/> (minified ones in generated/bundle/<target>-min/) and are rebuilt only when
 * their input changed (the file, the installed packages, esbuild or options).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build, version as esbuildVersion, type BuildFailure, type BuildOptions, type Message, type Plugin } from 'esbuild';
import { PROJECT_ROOT } from '../../generators/registry.ts';
import { ensureGeneratedPackage, GENERATED_DIR } from '../../generators/write.ts';
import { EAGER_REQUIRE_LINES } from '../../generators/lambda-probe.ts';

export const BUNDLE_DIR = path.join(GENERATED_DIR, 'bundle');

/** The builds that bundle, and whether each minifies (core/dimensions.ts BUILDS). */
export type { BundleBuild } from '../core/dimensions.ts';
import type { BundleBuild } from '../core/dimensions.ts';

/** Where the bundle (`build`) of `relative` (a path under generated/) for `target` lives. */
export function bundlePath(relative: string, target: string, build: BundleBuild): string {
  return path.join(BUNDLE_DIR, build === 'bundle-min' ? `${target}-min` : target, relative);
}

/** esbuild's metafile of a bundle: its inputs and the bytes each put into it. */
export function bundleMetaPath(output: string): string {
  return `${output}.meta.json`;
}

export type BundleOutcome = { ok: true; file: string; built: boolean } | { ok: false; error: string };

/** An ES module (an eager Lambda file, `.mjs`) is bundled as one: its top-level await stays where it is. */
export function isModuleFile(file: string): boolean {
  return file.endsWith('.mjs');
}

/**
 * The `require` an ES-module bundle starts with: esbuild's own require of what stays outside the
 * bundle (Node's built-in modules) calls it, as esbuild's documentation advises for ESM output on node.
 */
const MODULE_BANNER = [
  `import { createRequire as __csCreateRequire } from 'node:module';`,
  'const require = __csCreateRequire(import.meta.url);',
].join('\n');

/**
 * An eager file's entry without its createRequire lines: its requires are then esbuild's to bundle
 * (a local `require` is a plain function to esbuild, whose calls it leaves out of the bundle).
 */
function moduleEntryPlugin(input: string): Plugin {
  const entry = path.resolve(input);
  return {
    name: 'coldstart-eager-entry',
    setup(build) {
      build.onLoad({ filter: /\.mjs$/ }, (args) => {
        if (args.path !== entry) return undefined;
        const lines = readFileSync(entry, 'utf8').split('\n');
        const kept = lines.filter((line) => !(EAGER_REQUIRE_LINES as readonly string[]).includes(line));
        return { contents: kept.join('\n'), loader: 'js', resolveDir: path.dirname(entry) };
      });
    },
  };
}

/**
 * `target` is a node line (`node22`: esbuild's target) or `bun`: no lowering, and Bun's export
 * condition, so the bundle holds the same package entries an unbundled file gets on Bun. An ES
 * module (an eager file) is bundled as an ES module (its top-level await kept), a CommonJS file as CommonJS.
 */
function bundleOptions(input: string, output: string, target: string, build: BundleBuild): BuildOptions {
  const esm = isModuleFile(input);
  return {
    entryPoints: [input],
    outfile: output,
    bundle: true,
    platform: 'node',
    format: esm ? 'esm' : 'cjs',
    ...(esm ? { banner: { js: MODULE_BANNER }, plugins: [moduleEntryPlugin(input)] } : {}),
    ...(target === 'bun' ? { target: 'esnext', conditions: ['bun'] } : { target }),
    minify: build === 'bundle-min',
    // a map beside the bundle, not referenced from it (the bundle's bytes and start are unchanged):
    // --attribute maps profiled frames back to the packages they came from
    sourcemap: 'external',
    sourcesContent: false,
    // what each input put into the bundle (bytes per package for --attribute): written beside it
    metafile: true,
    write: true,
    logLevel: 'silent',
    absWorkingDir: PROJECT_ROOT,
  };
}

/** What the installed packages are: npm's record of node_modules, else the lockfile. */
function installedTree(): string {
  for (const file of [path.join(PROJECT_ROOT, 'node_modules', '.package-lock.json'), path.join(PROJECT_ROOT, 'package-lock.json')]) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      // try the next
    }
  }
  return '';
}

function cacheKey(input: string, options: BuildOptions): string {
  const { entryPoints: _e, outfile: _o, absWorkingDir: _a, ...rest } = options;
  return createHash('sha256')
    .update(readFileSync(input))
    .update(JSON.stringify(rest))
    .update(esbuildVersion)
    .update(installedTree())
    .digest('hex');
}

function where(message: Message): string {
  const l = message.location;
  return l ? ` (${l.file}:${l.line})` : '';
}

/** esbuild's errors as one line: the first error, its place, and how many more there were. */
export function bundleErrorLine(error: unknown): string {
  const failure = error !== null && typeof error === 'object' ? (error as Partial<BuildFailure>) : undefined;
  const errors = failure?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return `bundle failed: ${String(failure?.message ?? error).split('\n')[0]}`;
  const first = errors[0]!;
  const more = errors.length > 1 ? ` and ${errors.length - 1} more error${errors.length > 2 ? 's' : ''}` : '';
  return `bundle failed (esbuild): ${first.text.replace(/\s+/g, ' ')}${where(first)}${more}`;
}

/** Bundle `input` into `output` (minified for bundle-min) unless an up-to-date bundle is there; never throws for a bad bundle. */
export async function bundleFile(input: string, output: string, target: string, kind: BundleBuild = 'bundle'): Promise<BundleOutcome> {
  const options = bundleOptions(input, output, target, kind);
  const key = cacheKey(input, options);
  const keyFile = `${output}.key`;
  if (existsSync(output) && existsSync(keyFile) && readFileSync(keyFile, 'utf8') === key) return { ok: true, file: output, built: false };
  rmSync(keyFile, { force: true });
  if (output.startsWith(GENERATED_DIR + path.sep)) ensureGeneratedPackage();
  mkdirSync(path.dirname(output), { recursive: true });
  try {
    const result = await build(options);
    writeFileSync(bundleMetaPath(output), JSON.stringify(result.metafile));
  } catch (error) {
    rmSync(output, { force: true });
    return { ok: false, error: bundleErrorLine(error) };
  }
  writeFileSync(keyFile, key);
  return { ok: true, file: output, built: true };
}
