'use strict';
/**
 * The router calls fastify makes when the seed's app registers N `GET` routes, and nothing else:
 * for each route `findRoute('HEAD', url)` then `on('GET', url)`, and for its `HEAD` twin the same
 * pair (fastify 4.29.1 lib/route.js), on the find-my-way its folder resolves (8 beside fastify 4, 9
 * beside fastify 5). Then a node:http server that looks requests up in it, so `measure` can time
 * and count it as a server: the instructions to listen are those of the N registrations.
 */
module.exports = function seedRouter(routes) {
  const router = require('find-my-way')();
  const handler = (_req, res) => res.end('{}');
  for (let i = 0; i < routes; ++i) {
    const url = `/${i}`;
    router.findRoute('HEAD', url, {});
    router.on('GET', url, handler);
    router.findRoute('HEAD', url, {});
    router.on('HEAD', url, handler);
  }
  require('node:http')
    .createServer((req, res) => router.lookup(req, res))
    .listen(Number(process.env.PORT), process.env.HOST);
};
