require('./seed-router.cjs')(4500);
