/**
 * The User model (user-model.ts) written in each validation library's idiom, as source text: Zod
 * (express, koa, hono, h3, restify, node:http), JSON Schema (fastify, for the body and the
 * response), Joi (hapi) and a TypeScript type (deepkit). Each is a pure function of the model: the
 * same model gives the same text. Dates: Zod coerces ISO strings to Date (`z.coerce.date()`), Joi
 * converts them (`Joi.date()`), deepkit deserializes `Date`, and JSON Schema checks `date-time`
 * strings (fastify's ajv has ajv-formats; fast-json-stringify writes Date objects as ISO strings).
 */
import { USER_MODEL, type ModelField, type ModelNode } from './user-model.ts';

const quote = (text: string) => `'${text}'`;

export function zodOf(node: ModelNode): string {
  switch (node.kind) {
    case 'string':
      return 'z.string()';
    case 'integer':
      return 'z.number().int()';
    case 'boolean':
      return 'z.boolean()';
    case 'date':
      return 'z.coerce.date()';
    case 'literal':
      return `z.literal(${quote(node.value)})`;
    case 'enum':
      return `z.enum([${node.values.map(quote).join(', ')}])`;
    case 'array':
      return `z.array(${zodOf(node.of)})`;
    case 'object':
      return `z.object({ ${node.fields.map((f) => `${f.name}: ${zodOf(f.type)}${f.optional ? '.optional()' : ''}`).join(', ')} })`;
    case 'union':
      return `z.discriminatedUnion(${quote(node.tag)}, [${node.variants.map(zodOf).join(', ')}])`;
  }
}

export function jsonSchemaOf(node: ModelNode): string {
  switch (node.kind) {
    case 'string':
      return `{ type: 'string' }`;
    case 'integer':
      return `{ type: 'integer' }`;
    case 'boolean':
      return `{ type: 'boolean' }`;
    case 'date':
      return `{ type: 'string', format: 'date-time' }`;
    case 'literal':
      return `{ type: 'string', const: ${quote(node.value)} }`;
    case 'enum':
      return `{ type: 'string', enum: [${node.values.map(quote).join(', ')}] }`;
    case 'array':
      return `{ type: 'array', items: ${jsonSchemaOf(node.of)} }`;
    case 'object': {
      const required = node.fields.filter((f) => !f.optional).map((f) => quote(f.name));
      const properties = node.fields.map((f) => `${f.name}: ${jsonSchemaOf(f.type)}`).join(', ');
      return `{ type: 'object', required: [${required.join(', ')}], properties: { ${properties} } }`;
    }
    case 'union':
      return `{ oneOf: [${node.variants.map(jsonSchemaOf).join(', ')}] }`;
  }
}

function joiField(f: ModelField): string {
  return `${f.name}: ${joiOf(f.type)}${f.optional ? '' : '.required()'}`;
}

export function joiOf(node: ModelNode): string {
  switch (node.kind) {
    case 'string':
      return 'Joi.string()';
    case 'integer':
      return 'Joi.number().integer()';
    case 'boolean':
      return 'Joi.boolean()';
    case 'date':
      return 'Joi.date()';
    case 'literal':
      return `Joi.string().valid(${quote(node.value)})`;
    case 'enum':
      return `Joi.string().valid(${node.values.map(quote).join(', ')})`;
    case 'array':
      return `Joi.array().items(${joiOf(node.of)})`;
    case 'object':
      return `Joi.object({ ${node.fields.map(joiField).join(', ')} })`;
    case 'union':
      return `Joi.alternatives().try(${node.variants.map(joiOf).join(', ')})`;
  }
}

export function typeOf(node: ModelNode): string {
  switch (node.kind) {
    case 'string':
      return 'string';
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'Date';
    case 'literal':
      return quote(node.value);
    case 'enum':
      return node.values.map(quote).join(' | ');
    case 'array':
      return node.of.kind === 'union' || node.of.kind === 'enum' ? `(${typeOf(node.of)})[]` : `${typeOf(node.of)}[]`;
    case 'object':
      return `{ ${node.fields.map((f) => `${f.name}${f.optional ? '?' : ''}: ${typeOf(f.type)}`).join('; ')} }`;
    case 'union':
      return node.variants.map(typeOf).join(' | ');
  }
}

/** `const UserSchema = z.object(…);`: the one Zod schema every route of a file shares. */
export const ZOD_USER = `const UserSchema = ${zodOf(USER_MODEL)};`;
/** `const UserSchema = Joi.object(…);` */
export const JOI_USER = `const UserSchema = ${joiOf(USER_MODEL)};`;
/** The JSON Schema of a User as a JS object literal (fastify adds it once with `$id: 'User'`). */
export const JSON_SCHEMA_USER = jsonSchemaOf(USER_MODEL);
/** `type User = {…};` for the typed frameworks. */
export const TS_USER = `type User = ${typeOf(USER_MODEL)};`;
