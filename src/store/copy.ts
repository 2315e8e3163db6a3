import { Query } from 'pg';
import type { Connection, PoolClient } from 'pg';

/*
 * Append-only rows written with COPY … FROM STDIN. Postgres then inserts them
 * a page at a time: one WAL record per page of rows, where INSERT … SELECT
 * logs a record (about 50 bytes of header and block reference) per row, and
 * less work per row. Triggers or volatile defaults would turn that off; the
 * tables written this way have none (identity columns are allowed).
 */

const SPECIAL = /[\\\t\n\r]/;
const BREAKS = /[\t\n\r]/;
const BREAKS_ALL = /[\t\n\r]/g;
const ESCAPED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A string as a field: backslashes doubled, tabs and line breaks escaped.
 * JSON texts (attributes, boosts) hold backslashes but never raw breaks, so
 * the callback runs only for strings a user sent with breaks in them.
 */
function escape(v: string): string {
  const s = v.replace(/\\/g, '\\\\');
  return BREAKS.test(s) ? s.replace(BREAKS_ALL, (ch) => ESCAPED[ch]!) : s;
}
const DAY_MS = 86_400_000;
/** The last UTC day written by time(), and its date. */
let lastDay = NaN;
let lastDate = '';

/** `n` as `width` decimal digits at `at` in `buf`; the position after them. */
function digits(buf: Buffer, at: number, n: number, width: number): number {
  for (let i = width - 1; i >= 0; i--, n = Math.floor(n / 10)) buf[at + i] = 48 + (n % 10);
  return at + width;
}

/**
 * Rows in COPY's text format, written field by field straight into a buffer
 * as UTF-8: no string per row or per line is made (a batch's events were
 * about 1.4 KB of short-lived strings a row when built as text).
 */
export class CopyRows {
  private buf: Buffer;
  private len = 0;
  private lineStart = true;

  constructor(rows: number) {
    this.buf = Buffer.allocUnsafe(Math.max(1024, rows * 256));
  }

  /** The next field of the current row: null as \N, backslashes and separators escaped. */
  field(v: string | number | null | undefined): this {
    if (typeof v === 'number') return this.word(String(v));
    if (v === null || v === undefined) return this.word('\\N');
    const s = SPECIAL.test(v) ? escape(v) : v;
    // At most 3 bytes of UTF-8 per UTF-16 unit, and the separator.
    this.room(s.length * 3 + 1);
    this.separate();
    this.len += this.buf.write(s, this.len);
    return this;
  }

  /**
   * A field Laurel made itself and knows to be ASCII with nothing to
   * escape (an id, a number, a date, a version; null as \N): its
   * characters copied as they are, cheaper than the UTF-8 encoder for
   * short strings.
   */
  word(v: string | null): this {
    const s = v ?? '\\N';
    this.room(s.length + 1);
    this.separate();
    const buf = this.buf;
    let at = this.len;
    for (let i = 0; i < s.length; i++) buf[at++] = s.charCodeAt(i);
    this.len = at;
    return this;
  }

  /** A time in epoch milliseconds as a timestamptz field: `YYYY-MM-DD HH:MM:SS.mmm+00`, the date part made once a day. */
  time(ms: number): this {
    const day = Math.floor(ms / DAY_MS);
    if (day !== lastDay) [lastDay, lastDate] = [day, new Date(day * DAY_MS).toISOString().slice(0, 10)];
    this.word(lastDate);
    this.room(17);
    const buf = this.buf;
    const t = ms - day * DAY_MS;
    buf[this.len] = 0x20;
    let at = digits(buf, this.len + 1, Math.floor(t / 3_600_000), 2);
    buf[at++] = 0x3a;
    at = digits(buf, at, Math.floor(t / 60_000) % 60, 2);
    buf[at++] = 0x3a;
    at = digits(buf, at, Math.floor(t / 1000) % 60, 2);
    buf[at++] = 0x2e;
    at = digits(buf, at, t % 1000, 3);
    buf[at++] = 0x2b;
    at = digits(buf, at, 0, 2);
    this.len = at;
    return this;
  }

  /** Ends the current row. */
  end(): void {
    this.room(1);
    this.buf[this.len++] = 0x0a;
    this.lineStart = true;
  }

  private separate(): void {
    if (!this.lineStart) this.buf[this.len++] = 0x09;
    this.lineStart = false;
  }

  /** The rows written so far. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(bigger, 0, 0, this.len);
    this.buf = bigger;
  }
}

const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]);

/** A message of Postgres's protocol: its type byte, its length, then `body`'s length more bytes to follow. */
function header(type: number, body: number): Buffer {
  const h = Buffer.allocUnsafe(5);
  h[0] = type;
  h.writeUInt32BE(body + 4, 1);
  return h;
}

/**
 * A COPY … FROM STDIN as a query object of pg's client (which calls the
 * handle… methods below as Postgres answers). The statement, the rows (one
 * CopyData message) and CopyDone go in one write, without waiting for
 * Postgres's CopyInResponse: one system call and one round trip a copy,
 * where pg-copy-streams made three and two (socket writes were a third of
 * the flusher's CPU). Postgres reads the messages in turn; should the copy
 * fail before it takes the rows (a statement before it failing), it
 * ignores CopyData and CopyDone outside a copy, as the protocol says.
 * A Query of pg's own kind, since a pipelined client (db.ts createPool)
 * takes no other: it answers from no portal kept open, so queries behind
 * it on the connection get their own answers.
 */
class CopyIn extends Query {
  constructor(
    private readonly sql: string,
    /** Not `rows`: pg's Query reads that as a count of rows to page by. */
    private readonly data: Buffer,
    private readonly settle: (err: Error | null) => void,
  ) {
    super(sql);
  }

  override submit = (connection: Connection): void => {
    const text = Buffer.from(`${this.sql}\0`);
    const s = connection.stream;
    s.cork();
    s.write(header(0x51, text.length));
    s.write(text);
    s.write(header(0x64, this.data.length));
    s.write(this.data);
    s.write(COPY_DONE);
    s.uncork();
  };

  /** The rows are on their way already. */
  handleCopyInResponse(): void {}
  handleCommandComplete(): void {}
  /** pg's client calls either this or handleReadyForQuery, once. */
  handleError(err: Error): void {
    this.settle(err);
  }
  handleReadyForQuery(): void {
    this.settle(null);
  }
}

/**
 * Send rows into `table (columns)` in the client's transaction, after the
 * statement `before` if one is given (a savepoint: one that answers no
 * rows), in the same message. Rejects with Postgres's error (its SQLSTATE in `code`) if it
 * refuses any: then none is stored, as with one INSERT.
 */
export function copyRows(c: PoolClient, table: string, columns: string, rows: CopyRows, before?: string): Promise<void> {
  const sql = `${before ? `${before}; ` : ''}COPY ${table} (${columns}) FROM STDIN`;
  return new Promise<void>((resolve, reject) => {
    c.query(new CopyIn(sql, rows.bytes(), (err) => (err ? reject(err) : resolve())));
  });
}
