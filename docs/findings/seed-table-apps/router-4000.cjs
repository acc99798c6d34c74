require('./seed-router.cjs')(4000);
