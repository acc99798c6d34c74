require('./seed-router.cjs')(3000);
