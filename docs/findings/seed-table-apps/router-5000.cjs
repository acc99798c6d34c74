require('./seed-router.cjs')(5000);
