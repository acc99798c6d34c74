require('./seed-router.cjs')(10);
