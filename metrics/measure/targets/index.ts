/** Every target by name: adding a target is one file in this folder and one line here. */
import { lambdaTarget } from './lambda.ts';
import { serverTarget } from './server.ts';
import type { Target } from './target.ts';

const TARGETS: Record<string, Target> = { server: serverTarget, lambda: lambdaTarget };

/** The target a cell runs on; undefined for a target that is only ever imported (aws-lambda). */
export function targetOf(name: string): Target | undefined {
  return TARGETS[name];
}
