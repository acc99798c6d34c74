require('./seed-mion.cjs')(5000, 'distinct');
