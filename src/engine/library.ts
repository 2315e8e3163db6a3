import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { observeScript } from '../observability/metrics';
import { masters, RedisClient } from '../redis/client';
import { EventGroups } from './group-commit';
import { BufferCommand } from './buffer-command';
import { luaPrelude } from './prelude';

/** Where the Lua sources live (copied beside dist/ in the image). */
export const LUA_DIR = path.resolve(__dirname, '../../../lua');

/** Script name → number of KEYS it takes (as its header declares them; test/lua-keys.test.ts checks both against the calls). */
export const SCRIPTS = {
  event: 9,
  user_upsert: 6,
  time_grant: 5,
  achievement_complete: 6,
  user_review: 5,
  streak_read: 3,
  streak_admin: 3,
  user_read: 4,
  board_read: 1,
  config_publish: 2,
  rate_limit: 1,
  user_erase: 5,
  retention_next: 1,
  league_close: 1,
  league_leave: 3,
} as const;
export type ScriptName = keyof typeof SCRIPTS;

/** lua/event_group.lua: several events of one tenant in one call (group commit, see group-commit.ts). */
const EVENT_GROUP = 'event_group';

/**
 * All scripts as one Redis Functions library: the prelude of shared
 * constants (prelude.ts), the shared helpers (lua/lib) once, then each script
 * as a function. Library and function names carry a
 * hash of the code, so two versions of Laurel can run side by side during a
 * deploy, and a changed script is never confused with an old one.
 */
export function librarySource(): { name: string; code: string; fn: (s: ScriptName | typeof EVENT_GROUP) => string } {
  const libDir = path.join(LUA_DIR, 'lib');
  const lib = [luaPrelude(), ...readdirSync(libDir)
    .filter((f) => f.endsWith('.lua'))
    .sort()
    .map((f) => readFileSync(path.join(libDir, f), 'utf8'))].join('\n');
  const bodies = (Object.keys(SCRIPTS) as ScriptName[]).map((n) => [n, readFileSync(path.join(LUA_DIR, `${n}.lua`), 'utf8')] as const);
  const group = readFileSync(path.join(LUA_DIR, `${EVENT_GROUP}.lua`), 'utf8');
  const hash = createHash('sha1').update(lib).update(bodies.map((b) => b.join('\n')).join('\n')).update(group).digest('hex').slice(0, 12);
  const fn = (s: ScriptName | typeof EVENT_GROUP) => `laurel_${s}_${hash}`;
  const code = [
    `#!lua name=laurel_${hash}`,
    lib,
    'local SCRIPT = {}',
    // Each script body becomes a function of (KEYS, ARGV), so it reads as a plain
    // script; its user-hash writes are applied when it returns (end_call).
    ...bodies.map(([n, body]) => `SCRIPT.${n} = function(KEYS, ARGV)\nbegin_call()\nlocal reply = (function()\n${body}\nend)()\nend_call()\nreturn reply\nend\nredis.register_function('${fn(n)}', SCRIPT.${n})`),
    group.replace('EVENT_GROUP_FUNCTION', fn(EVENT_GROUP)),
  ].join('\n');
  return { name: `laurel_${hash}`, code, fn };
}

/**
 * The one place that sends FCALL (only src/engine/calls use it): FCALL, loading the library first when Redis
 * lacks it. FCALL is routed by its first key, so in a cluster it reaches the
 * tenant's shard; each master keeps its own library, so it is loaded on all.
 */
export class Engine {
  private readonly lib = librarySource();
  private loaded: Promise<void> | null = null;
  /** Events go through here (calls/event.ts): grouped per tenant, see group-commit.ts. */
  readonly events: EventGroups;

  /** `maxEventGroup`: most events in one call (1: each event alone). */
  constructor(
    private readonly redis: RedisClient,
    maxEventGroup = 1,
  ) {
    this.events = new EventGroups(this, maxEventGroup);
  }

  /** Load the library on every master (idempotent; REPLACE keeps a reload harmless). */
  load(): Promise<void> {
    this.loaded ??= Promise.all(masters(this.redis).map((node) => node.call('FUNCTION', 'LOAD', 'REPLACE', this.lib.code)))
      .then(() => undefined)
      .finally(() => {
        this.loaded = null;
      });
    return this.loaded;
  }

  /** Raw FCALL; callers outside src/engine use the typed functions of src/engine/calls. */
  fcall(name: ScriptName, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.send(name, this.lib.fn(name), keys, args);
  }

  /**
   * Several events of one tenant in one FCALL (lua/event_group.lua),
   * evaluated in order; one reply per event, an Error in place of an event
   * whose script failed (the others stand).
   */
  async fcallEvents(events: { keys: string[]; args: (string | number)[] }[]): Promise<unknown[]> {
    const keys: string[] = [];
    const args: (string | number)[] = [events.length, events[0]!.keys.length, events[0]!.args.length];
    for (const e of events) {
      keys.push(...e.keys);
      args.push(...e.args);
    }
    return (await this.send(EVENT_GROUP, this.lib.fn(EVENT_GROUP), keys, args)) as unknown[];
  }

  private async send(name: ScriptName | typeof EVENT_GROUP, fn: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    const fcall = () => this.redis.sendCommand(new BufferCommand('FCALL', [fn, keys.length, ...keys, ...args], { replyEncoding: 'utf8' }));
    const started = performance.now();
    try {
      return await fcall();
    } catch (err) {
      // A Redis restarted without persistence, emptied with FUNCTION FLUSH, or a master new to the cluster.
      if (!/Function not found/i.test((err as Error).message)) throw err;
      await this.load();
      return fcall();
    } finally {
      observeScript(name, started);
    }
  }
}
