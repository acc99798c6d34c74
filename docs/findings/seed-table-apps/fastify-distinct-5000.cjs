require('./seed-fastify.cjs')(5000, 'distinct');
