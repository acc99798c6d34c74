require('./seed-mion.cjs')(1000, 'distinct');
