import type { Engine } from './library';

interface Waiting {
  keys: string[];
  args: (string | number)[];
  resolve(reply: unknown): void;
  reject(err: unknown): void;
}

/**
 * Group commit of events: the events of one tenant that reach the engine in
 * the same turn of the event loop (the requests the HTTP server dispatched in
 * one poll) go to Redis in one FCALL (lua/event_group.lua), evaluated in
 * arrival order, each answered with its own reply. One call instead of many
 * saves the client's, the socket's and Redis's per-command work; it waits
 * for nothing (the group is sent from setImmediate, right after the poll).
 * A lone event goes as a plain event call. `max` bounds a group (1: never
 * group, the default: on a 2-core host with Redis beside it, grouping
 * measured slower, since Node then idles while Redis runs a whole group
 * instead of working on earlier replies meanwhile; see bench/README.md).
 */
export class EventGroups {
  private readonly waiting = new Map<string, Waiting[]>();
  private scheduled = false;

  constructor(
    private readonly engine: Engine,
    private readonly max: number,
  ) {}

  /** Apply one event (lua/event.lua's keys and args); `tenant` names its group (any string unique to the tenant). */
  call(tenant: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    if (this.max <= 1) return this.engine.fcall('event', keys, args);
    return new Promise((resolve, reject) => {
      let group = this.waiting.get(tenant);
      if (!group) this.waiting.set(tenant, (group = []));
      group.push({ keys, args, resolve, reject });
      if (group.length >= this.max) {
        this.waiting.delete(tenant);
        this.send(group);
      } else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.sendAll);
      }
    });
  }

  private readonly sendAll = (): void => {
    this.scheduled = false;
    const groups = [...this.waiting.values()];
    this.waiting.clear();
    for (const g of groups) this.send(g);
  };

  private send(group: Waiting[]): void {
    if (group.length === 1) {
      const w = group[0]!;
      this.engine.fcall('event', w.keys, w.args).then(w.resolve, w.reject);
      return;
    }
    this.engine.fcallEvents(group).then(
      (replies) => group.forEach((w, i) => (replies[i] instanceof Error ? w.reject(replies[i]) : w.resolve(replies[i]))),
      (err: unknown) => group.forEach((w) => w.reject(err)),
    );
  }
}
