import { fork, ChildProcess } from 'node:child_process';
import { loadConfig, Config } from './config';
import { createLogger, Logger } from './log';
import { systemClock } from './clock';
import { startApp } from './app';
import { ensureServices } from './ops/ensure-services';
import { aggregateScrapes, answerScrapes } from './metrics-workers';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`laurel: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const worker = process.env.LAUREL_WORKER;
  const log = createLogger(config.logLevel, worker ? { worker: Number(worker) } : {});
  if (!process.env.LAUREL_WORKER) {
    try {
      await ensureServices(config, log);
    } catch (err) {
      process.stderr.write(`laurel: ${(err as Error).message}\n`);
      process.exit(1);
    }
    if (config.workers > 1) return supervise(config, log);
  }
  await serve(config, log);
}

/** One server process: listen, and shut down cleanly on SIGTERM/SIGINT (exit 0 within 10 s). */
async function serve(config: Config, log: Logger): Promise<void> {
  if (process.env.LAUREL_WORKER) answerScrapes();
  const app = await startApp(config, systemClock, log);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), 10_000);
    app.close().then(
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
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * WORKERS=N: N server processes on one port (the kernel spreads connections,
 * SO_REUSEPORT). They share nothing in memory: every process runs the
 * flusher and the leased scheduler, as separate machines would. A worker that
 * dies is started again; SIGTERM is passed on and waited for.
 */
function supervise(config: Config, log: Logger): void {
  const children = new Map<number, ChildProcess>();
  let stopping = false;
  const onMessage = aggregateScrapes(() => children.values());
  const start = (id: number) => {
    const child = fork(__filename, [], { env: { ...process.env, LAUREL_WORKER: String(id) } });
    children.set(id, child);
    child.on('message', (m) => onMessage(child, m));
    child.once('exit', (code, signal) => {
      children.delete(id);
      if (stopping) {
        if (children.size === 0) process.exit(0);
        return;
      }
      log.error('worker exited; starting it again', { worker: id, code, signal });
      setTimeout(() => start(id), 1000);
    });
  };
  for (let i = 1; i <= config.workers; i++) start(i);
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const c of children.values()) c.kill(signal);
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  log.info('laurel supervising workers', { workers: config.workers, port: config.port });
}

main().catch((err) => {
  process.stderr.write(`laurel: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
