require('./seed-mion.cjs')(10, 'identical');
