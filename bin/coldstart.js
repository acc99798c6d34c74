#!/usr/bin/env node
// `npx coldstart <command>`, from a checkout or from a project that installed the package: the
// TypeScript command line, run through tsx with the package's own tsconfig.json (never the one of
// the project it runs in), from the folder it was run in, after the checks tsx itself needs (a
// writable TMPDIR, enough open files: preflight.js).
import './preflight.js';
import path from 'node:path';
import { register } from 'tsx/esm/api';

register({ tsconfig: path.join(import.meta.dirname, '..', 'tsconfig.json') });
const { runCli } = await import('../metrics/cli/main.ts');
process.exitCode = await runCli(process.argv);
