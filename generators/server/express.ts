import type { AppParts } from '../app.ts';
import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { fileHeader } from '../probe.ts';
import { patternOf, type RouteRow } from '../routes.ts';
import { ZOD_USER } from '../schema-idioms.ts';
import { answerOf, renderRoutes, shapedInput, userSupport, verb } from '../shape-render.ts';

/**
 * express 5 as its users write it: `express.json()` for the body and one `app.post` per route; in
 * `validated` each route gets a small body-validation middleware around its own Zod schema, built
 * at startup, that answers 400 when `safeParse` fails.
 */

const VALIDATE_BODY = `function validateBody(schema) {
  return function validate(req, res, next) {
    const result = schema.safeParse(req.body);
    if (!result.success) return res.status(400).json({ error: 'invalid body', issues: result.error.issues });
    req.body = result.data;
    next();
  };
}`;

/**
 * Every shape (flat with the small schema is the classic file): the small schema per route, the user
 * schema once (`UserSchema`) and referenced by every route that takes a body; the nested shape
 * registers each group on its own `express.Router()` mounted at the group's prefix.
 */
export function expressApp(input: GenerateInput): AppParts {
  const { table, schema, validated } = shapedInput(input);
  const user = schema === 'user';
  const line = (row: RouteRow, owner: string) => {
    const handler = `function route${row.i}(req, res) { res.json(${answerOf(row, schema, 'req.body', 'req.params')}); }`;
    const check = validated && row.body ? `validateBody(${user ? 'UserSchema' : 'z.object({ name: z.string() })'}), ` : '';
    return `${owner}.${verb(row)}('${patternOf(row)}', ${check}${handler});`;
  };
  const groups = {
    open: (g: number) => `const group${g} = express.Router();`,
    owner: (g: number) => `group${g}`,
    close: (g: number) => `app.use('/group-${g}', group${g});`,
  };
  return {
    requires: `const express = require('express');`,
    validation: validated ? `\nconst { z } = require('zod');` : '',
    build: `const app = express();
app.use(express.json());${validated ? `\n${VALIDATE_BODY}` : ''}${validated && user ? `\n${ZOD_USER}` : ''}${userSupport(schema)}
${renderRoutes(table, 'app', line, groups)}`,
  };
}

export const EXPRESS_VALIDATION = 'Zod schema per route (z.object, built at startup), safeParse in a middleware, 400 on failure';

const express: FrameworkGenerator = {
  name: 'express',
  target: 'server',
  packages: ['express', 'zod'],
  validation: EXPRESS_VALIDATION,
  generate(input: GenerateInput): string {
    const app = expressApp(input);
    return `${fileHeader('express', input.variant, input.routes)}
${app.requires}${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
const server = app.listen(__csPort, __csHost, (error) => (error ? __csFail(error) : __csReady(server)));
server.on('error', __csFail);
`;
  },
};

export default express;
