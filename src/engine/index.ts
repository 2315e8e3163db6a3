/**
 * The one boundary with lua/: the Functions library (library.ts, the only
 * module that sends FCALL) and one typed function per Lua entry script
 * (calls/), taking named arguments and answering tagged unions of the
 * script's reply codes.
 */
export { Engine, LUA_DIR, SCRIPTS } from './library';
export type { ScriptName } from './library';
export * from './calls/event';
export * from './calls/user-read';
export * from './calls/user-upsert';
export * from './calls/achievement-complete';
export * from './calls/streak';
export * from './calls/board-read';
export * from './calls/small';
export * from './user-fields';
export * from './board-position';
export * from './achievement-stats';
export * from './league-runs';
export * from './calls/league';
export * from './change-record';
export * from './retry';
