require('./seed-router.cjs')(1000);
