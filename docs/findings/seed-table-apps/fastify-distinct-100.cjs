require('./seed-fastify.cjs')(100, 'distinct');
