/** What meta.json says of a run's Lambda cells: the runtime lines, how each start was launched (flags, variables), the event format. */
import { cellLabel } from '../core/cell.ts';
import type { LocalCpuSpeed } from '../core/lambda-cpu-reference.ts';
import { measureCpuSpeed } from '../measure/cpu-speed.ts';
import { LAMBDA_ENVIRONMENT_NAMES } from '../measure/runtime-api/environment.ts';
import type { PreparedCells } from '../plan/cells.ts';

export interface LambdaMeta {
  /** each cell (by label): how it started and its events' payload format; for `ric`, the node flags and the variables the bootstrap adds */
  starts: Record<string, { bootstrap: string; runtime: string; eventFormat: string; flags?: string[]; env?: Record<string, string> }>;
  /** the client, when a cell started with it */
  client?: string;
  /** the variables every Lambda child gets (values per sample: the Runtime API's address, the log stream) */
  variables: string[];
  /**
   * by the cells' runtime: this machine's CPU time for the CPU reference's loop on that runtime's node
   * (measure/cpu-speed.ts), which converts the cells' invocation CPU time to Lambda's speed
   */
  cpuSpeed?: Record<string, LocalCpuSpeed>;
}

export function lambdaMeta({ cells, ric }: Pick<PreparedCells, 'cells' | 'ric'>): LambdaMeta | undefined {
  const lambda = cells.filter((c) => c.cell.target === 'lambda');
  if (!lambda.length) return undefined;
  const starts: LambdaMeta['starts'] = {};
  for (const { cell, launch, contract, app } of lambda) {
    const start = launch?.start;
    starts[cellLabel(cell)] = {
      bootstrap: cell.bootstrap,
      runtime: cell.runtime,
      // the user's handler gets the user's event, whatever its shape
      eventFormat: app ? 'the --event file' : contract.eventFormat,
      ...(start ? { flags: start.flags, env: start.env } : {}),
    };
  }
  const cpuSpeed: Record<string, LocalCpuSpeed> = {};
  for (const { cell, launch } of lambda) {
    if (!launch || cell.runtime in cpuSpeed || cell.measure === 'instructions') continue;
    const speed = measureCpuSpeed(launch.command);
    if (speed) cpuSpeed[cell.runtime] = speed;
  }
  return {
    starts,
    ...(ric ? { client: ric.source } : {}),
    variables: [...LAMBDA_ENVIRONMENT_NAMES],
    ...(Object.keys(cpuSpeed).length ? { cpuSpeed } : {}),
  };
}
