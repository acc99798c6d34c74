require('./seed-fastify.cjs')(1000, 'distinct');
