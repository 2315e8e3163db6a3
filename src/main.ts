import { fork, ChildProcess } from 'node:child_process';
import cluster from 'node:cluster';
import { createServer } from 'node:net';
import { loadConfig, Config } from './config';
import { createLogger, Logger } from './observability/log';
import { systemClock } from './clock';
import { ALL_ROLES, AppRoles, startApp } from './app';
import { ensureServices } from './ops/ensure-services';
import { aggregateScrapes, answerScrapes } from './observability/metrics-workers';

/** LAUREL_WORKER's value for the supervisor's background process (HTTP workers have their number). */
const BACKGROUND = 'background';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`laurel: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const worker = process.env.LAUREL_WORKER;
  const log = createLogger(config.logLevel, !worker ? {} : worker === BACKGROUND ? { role: BACKGROUND } : { worker: Number(worker) });
  if (!worker) {
    try {
      await ensureServices(config, log);
    } catch (err) {
      process.stderr.write(`laurel: ${(err as Error).message}\n`);
      process.exit(1);
    }
    if (config.background === 'process') {
      // The cluster's first worker binds the port and the supervisor keeps
      // restarting workers that fail: check that it is free first, to say so once.
      if (!(await portIsFree(config.host, config.port))) {
        process.stderr.write(`laurel: port ${config.port} on ${config.host} is already in use\n`);
        process.exit(1);
      }
      return supervise(config, log);
    }
  }
  const roles: AppRoles = !worker
    ? { ...ALL_ROLES, flushers: config.flushers }
    : worker === BACKGROUND ? { http: false, background: true, flushers: config.flushers } : { http: true, background: false, sharedPort: config.workers > 1 };
  await serve(config, log, roles);
}

/** One process (alone, or one of a supervisor's): start, and shut down cleanly on SIGTERM/SIGINT (exit 0 within 10 s). */
async function serve(config: Config, log: Logger, roles: AppRoles): Promise<void> {
  if (process.env.LAUREL_WORKER) answerScrapes();
  const started = startApp(config, systemClock, log, roles);
  let stopping = false;
  // Handled from the start: a signal while the app starts (a slow start on a
  // busy machine) waits for it and then closes it, so the final flush still
  // writes what the HTTP workers accepted meanwhile.
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), 10_000);
    started.then((app) => app.close()).then(
      () => {
        clearTimeout(force);
        process.exit(0);
      },
      (err) => {
        log.error('shutdown failed', { err: (err as Error).message });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (process.env.LAUREL_WORKER) {
    // Under a supervisor, which orders the shutdown (HTTP workers first, then
    // the background process): a terminal's Ctrl-C reaches the whole process
    // group, and the supervisor passes it on as SIGTERM in that order.
    process.on('SIGINT', () => undefined);
    // The supervisor is gone (killed): stop rather than run on unsupervised.
    process.on('disconnect', () => stop('disconnect'));
  } else {
    process.on('SIGINT', () => stop('SIGINT'));
  }
  await started;
}

/** Whether the port can be bound exclusively (so no other process listens on it). */
function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** How long a shutdown waits for the HTTP workers before stopping the background process anyway. */
const WORKERS_STOP_MS = 6_000;

/**
 * WORKERS=N (or BACKGROUND=process): N HTTP server processes on one port (a
 * cluster: the supervisor holds the port and hands connections round-robin
 * to the workers; one alone binds the port itself), plus one background process that runs the
 * flusher, the leased scheduler and the webhook dispatcher. They share
 * nothing in memory. Any child that dies is started again; SIGTERM goes to the
 * HTTP workers first, then (once they are done) to the background process,
 * whose final flush then writes everything they accepted.
 *
 * Why the background jobs are off the HTTP workers: their batch work (parsing
 * 500 change records, building large jsonb parameters, Postgres round trips)
 * shared each worker's event loop with requests, costing throughput and p99.
 * The background process runs FLUSHERS flushers (default: one per worker, two
 * at least): a flusher spends most of its time waiting on Postgres, and a
 * single one fell behind a sustained event load that two kept up with.
 *
 * Why a child process and not the supervisor itself: isolation. A crash or a
 * stall in the background code (an uncaught error, a pathological batch,
 * memory) then costs a restart of that child, as for a worker, while the
 * workers keep serving (events wait in the Redis streams meanwhile); in the
 * supervisor it would take every worker down with it (the container's main
 * process). The supervisor also stays small and free to answer metrics
 * scrapes promptly, and a Postgres outage at start-up makes the background
 * child retry instead of ending the supervisor. The cost is one more Node.js
 * process (tens of MB) and an IPC hop for its metrics, which the scrape
 * aggregation already does for workers.
 */
function supervise(config: Config, log: Logger): void {
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const onMessage = aggregateScrapes(() => children.values());
  const httpWorkersLeft = () => [...children.keys()].some((id) => id !== BACKGROUND);
  const stopBackground = () => children.get(BACKGROUND)?.kill('SIGTERM');
  const start = (id: string) => {
    // HTTP workers through the cluster module, which shares their listening port; the background process listens on nothing.
    const child = id === BACKGROUND ? fork(__filename, [], { env: { ...process.env, LAUREL_WORKER: id } }) : cluster.fork({ LAUREL_WORKER: id }).process;
    children.set(id, child);
    child.on('message', (m) => onMessage(child, m));
    child.once('exit', (code, signal) => {
      children.delete(id);
      if (stopping) {
        if (children.size === 0) process.exit(0);
        else if (!httpWorkersLeft()) stopBackground();
        return;
      }
      if (id === BACKGROUND) log.error('background process exited; starting it again', { role: BACKGROUND, code, signal });
      else log.error('worker exited; starting it again', { worker: Number(id), code, signal });
      setTimeout(() => stopping || start(id), 1000);
    });
  };
  for (let i = 1; i <= config.workers; i++) start(String(i));
  start(BACKGROUND);
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    if (children.size === 0) process.exit(0);
    for (const [id, c] of children) if (id !== BACKGROUND) c.kill('SIGTERM');
    if (!httpWorkersLeft()) stopBackground();
    // Workers slow to finish their requests must not eat the background process's final flush.
    setTimeout(stopBackground, WORKERS_STOP_MS).unref();
    setTimeout(() => {
      for (const c of children.values()) c.kill('SIGKILL');
      process.exit(1);
    }, 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  log.info('laurel supervising workers', { workers: config.workers, background: 1, port: config.port });
}

main().catch((err) => {
  process.stderr.write(`laurel: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
