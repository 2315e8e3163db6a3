import { loadConfig } from '../config';
import { createLogger } from '../observability/log';
import { ensureServices } from './ensure-services';

/** `npm test` runs this first, so a fresh machine gets its Redis and Postgres. */
const config = loadConfig();
ensureServices(config, createLogger(config.logLevel)).then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`laurel: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
