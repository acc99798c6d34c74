#!/usr/bin/env node
// `npx coldstart <command>` from a checkout: the TypeScript command line, run through tsx, after the
// checks tsx itself needs (a writable TMPDIR, enough open files: preflight.js).
import './preflight.js';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../metrics/cli/main.ts');
process.exitCode = await main(process.argv);
