import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/*
 * Append-only rows written with COPY … FROM STDIN. Postgres then inserts them
 * a page at a time: one WAL record per page of rows, where INSERT … SELECT
 * logs a record (about 50 bytes of header and block reference) per row, and
 * less work per row. Triggers or volatile defaults would turn that off; the
 * tables written this way have none (identity columns are allowed).
 */

const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

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
    const s = v === null || v === undefined ? '\\N' : typeof v === 'string' ? (SPECIAL.test(v) ? v.replace(SPECIAL_ALL, (ch) => ESCAPED[ch]!) : v) : String(v);
    // At most 3 bytes of UTF-8 per UTF-16 unit, and the separator.
    this.room(s.length * 3 + 1);
    if (!this.lineStart) this.buf[this.len++] = 0x09;
    this.lineStart = false;
    this.len += this.buf.write(s, this.len);
    return this;
  }

  /** A time in epoch milliseconds as a timestamptz field. */
  time(ms: number): this {
    return this.field(new Date(ms).toISOString());
  }

  /** Ends the current row. */
  end(): void {
    this.room(1);
    this.buf[this.len++] = 0x0a;
    this.lineStart = true;
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

/**
 * Send rows into `table (columns)` in the client's transaction. Rejects
 * with Postgres's error (its SQLSTATE in `code`) if it refuses any: then
 * none is stored, as with one INSERT.
 */
export async function copyRows(c: PoolClient, table: string, columns: string, rows: CopyRows): Promise<void> {
  const stream = c.query(copyFrom(`COPY ${table} (${columns}) FROM STDIN`));
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(rows.bytes());
  });
}
