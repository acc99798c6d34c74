/**
 * The `bundle` build: a generated file and everything it requires turned into ONE CommonJS file by
 * esbuild (platform node, no minifying, targeting the runtime), as a serverless deploy ships it;
 * `bundle-min` is the same file minified. Bundles live in generated/bundle/<target>/<the file's path
 * under generated/> (minified ones in generated/bundle/<target>-min/) and are rebuilt only when
 * their input changed: the options, esbuild's version, the project's installed packages, and the
 * content of every file esbuild read into the bundle (its metafile's inputs: the entry, each module it
 * imports, the packages' files), each hashed when the bundle is built and hashed again before it is
 * reused (`<bundle>.key`). Not seen: a new file that would change how an import resolves while every
 * file read before is unchanged (a `node_modules` folder added nearer the app); `--build plain` has no cache.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { version as esbuildVersion, type BuildFailure, type BuildOptions, type Message, type Metafile, type Plugin } from 'esbuild';
import { PROJECT_ROOT } from '../../generators/registry.ts';
import { ensureGeneratedPackage, GENERATED_DIR } from '../../generators/write.ts';
import { EAGER_REQUIRE_LINES } from '../../generators/lambda-probe.ts';
import { buildWithService } from './esbuild-service.ts';

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
 * A user's code read only from regular files: a FIFO, a socket or a device among its imports is an error of the
 * build, where esbuild would wait on it forever (a FIFO with no writer). One stat a file; the bundle's bytes unchanged.
 */
function regularFilesPlugin(): Plugin {
  return {
    name: 'coldstart-regular-files',
    setup(build) {
      build.onLoad({ filter: /.*/ }, (args) => {
        if (args.namespace !== 'file') return undefined;
        const stat = statSync(args.path, { throwIfNoEntry: false });
        if (stat === undefined || stat.isFile()) return undefined;
        return { errors: [{ text: `${args.path} is not a file (a FIFO, a socket, a device or a folder): an import must be a file` }] };
      });
    },
  };
}

/**
 * `target` is a node line (`node22`: esbuild's target) or `bun`: no lowering, and Bun's export
 * condition, so the bundle holds the same package entries an unbundled file gets on Bun. An ES
 * module (an eager file) is bundled as an ES module (its top-level await kept), a CommonJS file as CommonJS.
 */
function bundleOptions(input: string, output: string, target: string, build: BundleBuild, userCode = false): BuildOptions {
  const esm = isModuleFile(input);
  const plugins = [...(esm ? [moduleEntryPlugin(input)] : []), ...(userCode ? [regularFilesPlugin()] : [])];
  return {
    entryPoints: [input],
    outfile: output,
    bundle: true,
    platform: 'node',
    format: esm ? 'esm' : 'cjs',
    ...(esm ? { banner: { js: MODULE_BANNER } } : {}),
    ...(plugins.length ? { plugins } : {}),
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

/** What a bundle was built from: everything but its files, and the sha256 of each file esbuild read (path: hash). */
interface BundleKey {
  options: string;
  inputs: Record<string, string>;
}

function optionsKey(input: string, options: BuildOptions): string {
  const { entryPoints: _e, outfile: _o, absWorkingDir: _a, ...rest } = options;
  return createHash('sha256')
    .update(path.resolve(input))
    .update(JSON.stringify(rest))
    .update(esbuildVersion)
    .update(installedTree())
    .digest('hex');
}

function sha256Of(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/** The files of a metafile's inputs (paths relative to the working folder; another namespace's `ns:path` left out), each hashed. */
export function inputHashes(metafile: Metafile, workingDir: string): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const input of Object.keys(metafile.inputs)) {
    if (/^[a-z][\w-]*:/i.test(input)) continue;
    const file = path.resolve(workingDir, input);
    const hash = sha256Of(file);
    if (hash !== undefined) hashes[file] = hash;
  }
  return hashes;
}

/** Whether the bundle of `keyFile` was built with these options from files that are all unchanged. */
function upToDate(keyFile: string, options: string): boolean {
  let key: unknown;
  try {
    key = JSON.parse(readFileSync(keyFile, 'utf8'));
  } catch {
    return false;
  }
  if (key === null || typeof key !== 'object') return false;
  const { options: built, inputs } = key as Partial<Record<keyof BundleKey, unknown>>;
  if (built !== options || inputs === null || typeof inputs !== 'object') return false;
  const files = Object.entries(inputs);
  return files.length > 0 && files.every(([file, hash]) => sha256Of(file) === hash);
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
export async function bundleFile(
  input: string,
  output: string,
  target: string,
  kind: BundleBuild = 'bundle',
  /** a user's code (their handler or server): its imports read from regular files only (regularFilesPlugin) */
  userCode = false,
): Promise<BundleOutcome> {
  const options = bundleOptions(input, output, target, kind, userCode);
  const key = optionsKey(input, options);
  const keyFile = `${output}.key`;
  if (existsSync(output) && upToDate(keyFile, key)) return { ok: true, file: output, built: false };
  rmSync(keyFile, { force: true });
  if (output.startsWith(GENERATED_DIR + path.sep)) ensureGeneratedPackage();
  mkdirSync(path.dirname(output), { recursive: true });
  let metafile: Metafile;
  try {
    const result = await buildWithService(options);
    metafile = result.metafile!;
    writeFileSync(bundleMetaPath(output), JSON.stringify(metafile));
  } catch (error) {
    rmSync(output, { force: true });
    return { ok: false, error: bundleErrorLine(error) };
  }
  const written: BundleKey = { options: key, inputs: inputHashes(metafile, PROJECT_ROOT) };
  writeFileSync(keyFile, JSON.stringify(written));
  return { ok: true, file: output, built: true };
}
