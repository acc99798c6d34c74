require('./seed-fastify.cjs')(10, 'distinct');
