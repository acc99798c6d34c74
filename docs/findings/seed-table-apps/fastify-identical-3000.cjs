require('./seed-fastify.cjs')(3000, 'identical');
