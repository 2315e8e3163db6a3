import path from 'node:path';
import { loadConfig } from '../config';
import { CLUSTER_PORTS, ensureCluster, stopCluster } from './redis-cluster';

/**
 * `npm run redis:cluster [-- stop]`: a local Redis Cluster of three masters on
 * 127.0.0.1:7001-7003, its data under LAUREL_DATA_DIR/redis-cluster. Starting
 * it again while it is up changes nothing.
 */
const dir = path.join(loadConfig().dataDir, 'redis-cluster');
const stop = process.argv[2] === 'stop';
(stop ? stopCluster(CLUSTER_PORTS) : ensureCluster(CLUSTER_PORTS, dir)).then(
  () => {
    if (!stop) process.stdout.write(`redis cluster up: REDIS_CLUSTER=1 REDIS_URL=redis://127.0.0.1:${CLUSTER_PORTS[0]}\n`);
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`laurel: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
