'use strict';
/**
 * The seed's mion app (MionKit/Benchmarks metrics/startup-mion-routes.js, 2024-01) for `npm run
 * measure`, on mion 0.7.2 as coldstart's generated mion file uses it. The handler is the one of the
 * generated file, as the TypeScript compiler with deepkit's type transformer writes it (its type
 * data in `__assignType`). `identical`: every route is the same handler object (the seed registers
 * `routes.hello` N times); `distinct`: each route its own function object with its own type data,
 * made in the loop (the same code, so V8 parses it once; coldstart's generated file writes each
 * route out literally instead). It listens where the runner says (PORT, HOST).
 */
function __assignType(fn, args) {
  fn.__type = args;
  return fn;
}
const TYPE = ['ctx', 'name', 'hello', 'route', '', 'P"2!&2"P&4#\'4$M/%'];

module.exports = function seedMion(routes, handlers) {
  const router = require('@mionkit/router');
  const http = require('@mionkit/http');
  const shared = __assignType((ctx, name) => ({ hello: name, route: 0 }), TYPE);
  const table = {};
  for (let i = 0; i < routes; ++i) {
    table[`route-${i}`] = handlers === 'identical' ? shared : __assignType((ctx, name) => ({ hello: name, route: i }), TYPE);
  }
  router.initRouter();
  router.registerRoutes(table);
  // as the generated file: bind HOST:PORT through the port option, and keep mion's banner off stdout
  http.setNodeHttpOpts({ port: { host: process.env.HOST, port: Number(process.env.PORT) } });
  const log = console.log;
  console.log = () => undefined;
  try {
    http.startNodeServer();
  } finally {
    console.log = log;
  }
};
