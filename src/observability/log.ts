import pino from 'pino';

/** Structured logs (pino): one JSON object per line on stderr. */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

export interface Logger {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
  /** Whether a call at this level writes anything (to skip building its fields). */
  isLevelEnabled(level: Exclude<LogLevel, 'silent'>): boolean;
}

export function isLogLevel(v: string): v is LogLevel {
  return v in LEVELS;
}

/** `bindings` are added to every line (e.g. the worker number). */
export function createLogger(level: LogLevel, bindings: Record<string, unknown> = {}): Logger {
  const p = pino(
    {
      level,
      base: { pid: process.pid, ...bindings },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // Synchronous: the few lines written (nothing per request at info) must survive a crash.
    pino.destination({ fd: 2, sync: true }),
  );
  const at =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (msg: string, extra?: Record<string, unknown>): void => {
      if (extra) p[lvl](extra, msg);
      else p[lvl](msg);
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    isLevelEnabled: (lvl) => p.isLevelEnabled(lvl),
  };
}
