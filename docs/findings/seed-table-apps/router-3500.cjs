require('./seed-router.cjs')(3500);
