import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { reachable, run, waitFor } from './ensure-services';

/** Ports of the local cluster `npm run redis:cluster` starts (and `npm run test:cluster` uses). */
export const CLUSTER_PORTS = [7001, 7002, 7003];

/**
 * redis-server arguments of one node of a local cluster on loopback, its data
 * in `<dir>/<port>`. Without full coverage a shard that is down takes only its
 * own tenants with it; the other shards keep answering.
 */
export function clusterNodeArgs(port: number, dir: string, fsync: 'always' | 'everysec' = 'everysec'): string[] {
  const nodeDir = path.join(dir, String(port));
  mkdirSync(nodeDir, { recursive: true });
  return [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir,
    '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-require-full-coverage', 'no',
    '--appendonly', 'yes', '--appendfsync', fsync, '--save', '',
  ];
}

function clusterInfo(port: number): Record<string, string> {
  const r = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' });
  return Object.fromEntries((r.stdout ?? '').split(/\r?\n/).filter((l) => l.includes(':')).map((l) => l.split(':', 2) as [string, string]));
}

/**
 * Join running nodes into one cluster of masters (no replicas), with the slots
 * spread evenly, unless they already form it (a restarted node rejoins from
 * its nodes.conf). Resolves once every node sees the whole cluster healthy.
 */
export async function formCluster(ports: number[], seconds = 30): Promise<void> {
  for (const p of ports) await waitFor('127.0.0.1', p, `redis-server on port ${p}`);
  const unassigned = ports.every((p) => clusterInfo(p).cluster_slots_assigned === '0');
  if (unassigned) run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
  for (let i = 0; i < seconds * 5; i++) {
    const healthy = ports.every((p) => {
      const info = clusterInfo(p);
      return info.cluster_state === 'ok' && info.cluster_slots_ok === '16384' && info.cluster_known_nodes === String(ports.length);
    });
    if (healthy) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the redis cluster on ports ${ports.join(', ')} did not become healthy (remove ${ports.length} stale nodes.conf files to start afresh)`);
}

/** Start (as daemons) the nodes not yet running, then form the cluster. A no-op when it is up. */
export async function ensureCluster(ports: number[], dir: string): Promise<void> {
  for (const p of ports) {
    if (await reachable('127.0.0.1', p)) continue;
    const args = clusterNodeArgs(p, dir);
    run('redis-server', [...args, '--daemonize', 'yes', '--logfile', path.join(dir, String(p), 'redis.log')]);
  }
  await formCluster(ports);
}

/** Stop the nodes (their AOF and nodes.conf stay, so the next start resumes the cluster). */
export async function stopCluster(ports: number[]): Promise<void> {
  for (const p of ports) if (await reachable('127.0.0.1', p)) run('redis-cli', ['-p', String(p), 'shutdown']);
}
