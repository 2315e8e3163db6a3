import { Command } from 'ioredis';

type CommandOptions = ConstructorParameters<typeof Command>[2];

/**
 * ioredis's Command flattens its arguments with Array.prototype.flat, which
 * V8 (node 20) runs on a slow generic path: about 85 ns an element, 2.8 µs
 * for an event call's 33, more than the rest of making the command. An
 * array given its own `flat`, which hands it back as it is, skips that.
 */
function flatAlready<T>(args: T[]): T[] {
  (args as unknown as { flat: unknown }).flat = returnSelf;
  return args;
}
function returnSelf(this: unknown): unknown {
  return this;
}

/** Byte lengths of the arguments of the command being written (reused: no array per call). */
const lengths: number[] = [];

/** Decimal digits of a non-negative integer. */
function digits(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    d++;
  }
  return d;
}

/** `<prefix><n>\r\n` at `at` (a RESP count or length line); the position after it. */
function line(buf: Buffer, at: number, prefix: number, n: number): number {
  buf[at++] = prefix;
  const end = at + digits(n);
  for (let i = end - 1; i >= at; i--, n = Math.floor(n / 10)) buf[i] = 48 + (n % 10);
  buf[end] = 13;
  buf[end + 1] = 10;
  return end + 2;
}

/** The RESP frame's bytes for a bulk string of `n` bytes. */
const bulkSize = (n: number) => 1 + digits(n) + 2 + n + 2;

const ARRAY = 0x2a; // '*'
const BULK = 0x24; // '$'

/**
 * A command written to Redis as one Buffer. ioredis writes a command as a
 * string it grows by five concatenations per argument, then encodes for the
 * socket: for an event's FCALL (about 30 arguments, a kilobyte) about 6 KB
 * of short-lived strings, the largest allocation of an event in
 * bench:record's heap profile. Here each argument's UTF-8 length is
 * measured and the RESP frame written into one buffer of that size.
 * Arguments stay as ioredis keeps them (strings), so a cluster still
 * routes by key.
 */
export class BufferCommand extends Command {
  /** `args` flat already: the name's arguments, keys and values, each a string or number. */
  constructor(name: string, args: (string | number)[], options?: CommandOptions) {
    super(name, flatAlready(args), options);
  }

  override toWritable(): Buffer {
    const args = this.args as string[];
    let size = 1 + digits(args.length + 1) + 2 + bulkSize(this.name.length);
    for (let i = 0; i < args.length; i++) size += bulkSize((lengths[i] = Buffer.byteLength(args[i]!)));
    const buf = Buffer.allocUnsafe(size);
    let at = line(buf, 0, ARRAY, args.length + 1);
    at = line(buf, at, BULK, this.name.length);
    at += buf.write(this.name, at, 'latin1');
    buf[at++] = 13;
    buf[at++] = 10;
    for (let i = 0; i < args.length; i++) {
      at = line(buf, at, BULK, lengths[i]!);
      at += buf.write(args[i]!, at, 'utf8');
      buf[at++] = 13;
      buf[at++] = 10;
    }
    return buf;
  }
}
