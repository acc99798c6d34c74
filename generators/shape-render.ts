/**
 * What the generators share to write a route table (routes.ts) in their own idiom: the table of an
 * input, the answer a handler returns, and the User schema's support lines. A handler answers
 * `{ hello, route, …params, user }`: for the flat shape with the small schema that is exactly
 * `{ hello: <body>.name, route: <i> }`, the answer the files always had.
 */
import { paramsOf, routeTable, type RouteRow } from './routes.ts';
import type { GenerateInput } from './types.ts';
import { UPDATE_USER } from './user-model.ts';
import { DEFAULT_SCHEMA, DEFAULT_SHAPE, type Schema, type Shape } from '../metrics/core/dimensions.ts';

export interface ShapedInput {
  routes: number;
  shape: Shape;
  schema: Schema;
  validated: boolean;
  table: RouteRow[];
}

export function shapedInput(input: GenerateInput): ShapedInput {
  const shape = input.shape ?? DEFAULT_SHAPE;
  return {
    routes: input.routes,
    shape,
    schema: input.schema ?? DEFAULT_SCHEMA,
    validated: input.variant === 'validated',
    table: routeTable(shape, input.routes),
  };
}

/** True for the files as they always were (flat routes, the one-field body). */
export function isClassic(input: GenerateInput): boolean {
  return (input.shape ?? DEFAULT_SHAPE) === 'flat' && (input.schema ?? DEFAULT_SCHEMA) === 'small';
}

/** The answer of route `row` as a JS object literal, from the expressions of its body and its params. */
export function answerOf(row: RouteRow, schema: Schema, body: string, params: string): string {
  const parts: string[] = [];
  if (row.body) parts.push(`hello: ${body}.${schema === 'user' ? 'username' : 'name'}`);
  parts.push(`route: ${row.i}`);
  for (const param of paramsOf(row)) parts.push(`${param}: ${params}.${param}`);
  if (row.body && schema === 'user') parts.push(`user: updateUser(${body})`);
  return `{ ${parts.join(', ')} }`;
}

/** Lowercase method name, as most routers name their registration functions. */
export function verb(row: RouteRow): string {
  return row.method.toLowerCase();
}

/** Lines a file with the user schema needs once (the handlers' update), '' otherwise; each starts with a newline. */
export function userSupport(schema: Schema): string {
  return schema === 'user' ? `\n${UPDATE_USER}` : '';
}

/** How a framework writes a group of the nested shape: the lines before and after its routes, and who registers them. */
export interface GroupIdiom {
  open(group: number): string;
  /** the expression the group's routes are registered on */
  owner(group: number): string;
  close(group: number): string;
}

/**
 * The table's routes, one line each (`line(row, owner)`), in table order; the nested shape's routes
 * inside their group's opening and closing lines, registered on the group's owner.
 */
export function renderRoutes(table: RouteRow[], root: string, line: (row: RouteRow, owner: string) => string, groups?: GroupIdiom): string {
  const out: string[] = [];
  let open: number | undefined;
  for (const row of table) {
    if (row.group !== open && open !== undefined && groups) out.push(groups.close(open));
    if (row.group !== undefined && row.group !== open && groups) out.push(groups.open(row.group));
    open = row.group;
    out.push(line(row, row.group === undefined || !groups ? root : groups.owner(row.group)));
  }
  if (open !== undefined && groups) out.push(groups.close(open));
  return out.join('\n');
}
