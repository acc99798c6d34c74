require('./seed-fastify.cjs')(10, 'identical');
