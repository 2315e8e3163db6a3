/**
 * Route patterns as uWebSockets.js read them, so existing routes match the
 * same requests: `/v1/users/:id` (a parameter is one non-empty segment), a
 * final `*` for the rest of the path, and no trailing-slash leniency. At each
 * segment a fixed name wins over a parameter, and a parameter over `*`.
 */
interface Node<T> {
  fixed: Map<string, Node<T>>;
  param: Node<T> | null;
  /** By upper-case method. */
  here: Map<string, T>;
  rest: Map<string, T>;
}

const node = <T>(): Node<T> => ({ fixed: new Map(), param: null, here: new Map(), rest: new Map() });

export interface Match<T> {
  value: T;
  /** Raw (still percent-encoded) parameter segments, in pattern order. */
  params: string[];
}

export class Router<T> {
  private readonly root = node<T>();
  private readonly methods = new Set<string>();

  add(method: string, pattern: string, value: T): void {
    let n = this.root;
    const segs = pattern.split('/').slice(1);
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!;
      if (seg === '*' && i === segs.length - 1) {
        n.rest.set(method, value);
        this.methods.add(method);
        return;
      }
      if (seg.startsWith(':')) n = n.param ??= node();
      else n = n.fixed.get(seg) ?? n.fixed.set(seg, node()).get(seg)!;
    }
    n.here.set(method, value);
    this.methods.add(method);
  }

  find(method: string, path: string): Match<T> | null {
    const params: string[] = [];
    const value = walk(this.root, path.split('/'), 1, method, params);
    return value === undefined ? null : { value, params };
  }

  /** The methods served at this path (or at it without a trailing slash): a 405's `Allow`. */
  allowed(path: string): string[] {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    return [...this.methods].filter((m) => this.find(m, path) || this.find(m, trimmed));
  }
}

function walk<T>(n: Node<T>, segs: string[], i: number, method: string, params: string[]): T | undefined {
  if (i === segs.length) return n.here.get(method) ?? n.rest.get(method);
  const seg = segs[i]!;
  const fixed = n.fixed.get(seg);
  if (fixed) {
    const v = walk(fixed, segs, i + 1, method, params);
    if (v !== undefined) return v;
  }
  if (n.param && seg !== '') {
    params.push(seg);
    const v = walk(n.param, segs, i + 1, method, params);
    if (v !== undefined) return v;
    params.pop();
  }
  return n.rest.get(method);
}
