require('./seed-router.cjs')(2000);
