/**
 * What both targets ask of a route table: the timed first request goes to the LAST route, the
 * first hits to K further routes spread over the others (routes.ts firstHitRoutes), the invalid
 * body to the last route that takes one. Each target sends the requests its own way (HTTP, or an
 * event through the Runtime API); this module builds them and checks the answers.
 */
import {
  answerMatches,
  expectedAnswer,
  invalidRequest,
  PROBE_NAME,
  validRequest,
  type RouteRequest,
} from '../../../generators/contract.ts';
import { firstHitRoutes, routeTable, type RouteRow } from '../../../generators/routes.ts';
import type { Contract } from '../../../generators/types.ts';
import type { Cell } from '../../core/cell.ts';
import type { FirstHits } from '../../core/samples.ts';
import { oneLine } from '../text.ts';
import { SampleFailure } from './target.ts';
import type { Schema } from '../../core/dimensions.ts';

/** An answer as a target got it: status, parsed body (or text), when it was sent and when it had arrived (runner clock). */
export interface RouteAnswer {
  status: number;
  body: unknown;
  sentAt: number;
  at: number;
}

export type SendRequest = (request: RouteRequest, what: string) => Promise<RouteAnswer>;

/** Why an answer to `request` is not the expected one: `wrong answer from GET /r7: 500 {…}` (the fake sampler fails with it too). */
export function wrongAnswerReason(request: RouteRequest, answer: { status: number; body: unknown }, what = ''): string {
  const text = typeof answer.body === 'string' ? answer.body : ((JSON.stringify(answer.body) as string | undefined) ?? '');
  return `wrong answer${what} from ${request.method} ${request.path}: ${answer.status} ${oneLine(text, 160)}`;
}

/** A cell's route table with the requests the runner sends it. */
export class CellRoutes {
  readonly table: RouteRow[];
  readonly schema: Schema;

  constructor(
    cell: Cell,
    private readonly contract: Contract,
  ) {
    this.table = routeTable(cell.shape, cell.routes);
    this.schema = cell.schema;
  }

  /** The row of the timed first request: the last route. */
  get last(): RouteRow {
    return this.table[this.table.length - 1]!;
  }

  request(row: RouteRow): RouteRequest {
    return validRequest(row, this.schema, this.contract, PROBE_NAME);
  }

  /** Throws a SampleFailure unless `answer` is route `row`'s expected 200 answer. */
  check(row: RouteRow, answer: { status: number; body: unknown }, what = ''): void {
    // a contract may judge its own answers (the hello-world reference answers a bare 200)
    const correct = this.contract.accepts
      ? this.contract.accepts(answer.status, answer.body, row.i, PROBE_NAME)
      : answer.status === 200 && answerMatches(answer.body, expectedAnswer(row, this.schema, PROBE_NAME));
    if (correct) return;
    throw new SampleFailure(wrongAnswerReason(this.request(row), answer, what));
  }

  /** The invalid request for the check, to the last route that takes a body; undefined when none does. */
  invalid(): RouteRequest | undefined {
    const row = this.table.findLast((r) => r.body);
    return row && invalidRequest(row, this.schema, this.contract, PROBE_NAME);
  }

  /** Send the first hits one after the other, each checked; `spawnAt` is the sample's timeline origin. */
  async firstHits(count: number, spawnAt: number, send: SendRequest): Promise<FirstHits | undefined> {
    const routes = firstHitRoutes(this.table.length, count);
    if (!routes.length) return undefined;
    const latencyMs: number[] = [];
    let allWarm = 0;
    for (const i of routes) {
      const row = this.table[i]!;
      const request = this.request(row);
      const answer = await send(request, `first hit ${request.method} ${request.path}`);
      this.check(row, answer, ' to a first hit');
      latencyMs.push(answer.at - answer.sentAt);
      allWarm = answer.at - spawnAt;
    }
    return { routes, latencyMs, allWarm };
  }
}
