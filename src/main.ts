import { loadConfig } from './config';
import { createLogger } from './log';
import { systemClock } from './clock';
import { startApp } from './app';
import { ensureServices } from './ops/ensure-services';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`laurel: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const log = createLogger(config.logLevel);
  try {
    await ensureServices(config, log);
  } catch (err) {
    process.stderr.write(`laurel: ${(err as Error).message}\n`);
    process.exit(1);
  }
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

main().catch((err) => {
  process.stderr.write(`laurel: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
