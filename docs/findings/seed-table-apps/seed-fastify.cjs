'use strict';
/**
 * The seed's fastify app (MionKit/Benchmarks metrics/startup-fastify-routes.js, 2024-01), for
 * `npm run measure`: the same loop of `server.get('/${i}', { schema: { querystring } }, handler)`,
 * with two changes only. It listens where the runner says (PORT, HOST) and stays up to answer the
 * first request; and the querystring schema is written in full (`type: 'object', properties`),
 * because fastify 5 refuses the seed's shorthand (fastify 4 turns the shorthand into this form).
 * `distinct`: each route's schema names its own key (`[i]`, as the seed does); `identical`: every
 * route's schema has the same content (`name`), each in its own object literal, as coldstart's
 * generated files have.
 */
module.exports = function seedFastify(routes, schemas) {
  const fastify = require('fastify');
  const server = fastify();
  for (let i = 0; i < routes; ++i) {
    const key = schemas === 'distinct' ? String(i) : 'name';
    server.get(
      `/${i}`,
      { schema: { querystring: { type: 'object', properties: { [key]: { type: 'string' }, excitement: { type: 'integer' } } } } },
      (_req, reply) => {
        reply.send({});
      },
    );
  }
  server.listen({ host: process.env.HOST, port: Number(process.env.PORT) }, (error) => {
    if (error) throw error;
  });
};
