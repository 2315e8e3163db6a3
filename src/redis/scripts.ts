import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';

/** Where the Lua sources live (copied beside dist/ in the image). */
export const LUA_DIR = path.resolve(__dirname, '../../../lua');

/** Script name → number of KEYS it takes. */
const SCRIPTS = {
  event: 7,
  user_upsert: 5,
  time_grant: 4,
  achievement_complete: 5,
  user_review: 4,
  streak_read: 3,
  streak_admin: 3,
  user_read: 2,
  config_publish: 2,
} as const;
export type ScriptName = keyof typeof SCRIPTS;

/** Shared helpers (lua/lib) are prepended to every script, so each is written once. */
export function scriptSource(name: ScriptName): string {
  const libDir = path.join(LUA_DIR, 'lib');
  const lib = readdirSync(libDir)
    .filter((f) => f.endsWith('.lua'))
    .sort()
    .map((f) => readFileSync(path.join(libDir, f), 'utf8'))
    .join('\n');
  return `${lib}\n${readFileSync(path.join(LUA_DIR, `${name}.lua`), 'utf8')}`;
}

/**
 * Typed access to the scripts. ioredis sends EVALSHA and falls back to EVAL
 * once when Redis does not know the script yet.
 */
export class Scripts {
  constructor(private readonly redis: Redis) {
    for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
      redis.defineCommand(`laurel_${name}`, { numberOfKeys: SCRIPTS[name], lua: scriptSource(name) });
    }
  }

  run(name: ScriptName, keys: string[], args: (string | number)[]): Promise<unknown> {
    const fn = (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[`laurel_${name}`]!;
    return fn.call(this.redis, ...keys, ...args);
  }
}
