import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Answers written straight to a socket, for what never becomes a request
 * (a parse error, a refused WebSocket upgrade), and the gentle close that
 * follows every answer the server ends a connection with.
 */

/** How long a closing connection keeps reading (and dropping) what the client still sends. */
const LINGER_MS = 2_000;

/**
 * Close after an answer, in stages (RFC 9112 §9.6): send what is queued and
 * a FIN, keep reading until the client closes or LINGER_MS pass, then
 * destroy. Destroying at once while the client is still sending would make
 * the kernel reset the connection, and a reset can discard the answer
 * (a 413) before the client reads it.
 */
export function closeGently(socket: Duplex): void {
  if (socket.destroyed) return;
  socket.end();
  // Whatever still arrives goes to a parser in error, a dumped body, or here: nowhere.
  if (socket.listenerCount('data') === 0) socket.on('data', drop);
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
}

const drop = () => undefined;

/** A complete JSON answer on a connection that is then closed gently. */
export function answerRaw(socket: Duplex, status: number, body: string, headers: Record<string, string> = {}): void {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n`;
  for (const k in headers) head += `${k}: ${headers[k]}\r\n`;
  socket.write(`${head}\r\n${body}`);
  closeGently(socket);
}

/** llhttp's parse errors, as Node hands them to 'clientError'. */
export interface ParseError extends Error {
  code?: string;
  reason?: string;
  /** The bytes the parser was given (the request line is at their start). */
  rawPacket?: Buffer;
}

/** The status and message for a request the parser refused; null: close without a word (not HTTP/1). */
export function parseErrorAnswer(err: ParseError, maxHeaderBytes: number): { status: number; error: string } | null {
  const raw = err.rawPacket;
  // A TLS handshake (record type 22) or the HTTP/2 preface: nothing that reads an HTTP/1 answer.
  if (err.code === 'HPE_PAUSED_H2_UPGRADE' || raw?.[0] === 0x16) return null;
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, error: `Request header fields exceed ${maxHeaderBytes} bytes` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, error: 'Chunk extensions too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, error: 'Request not received in time' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, error: raw && lengthsDiffer(raw) ? 'Conflicting Content-Length headers' : 'Repeated Content-Length header' };
    case 'HPE_INVALID_VERSION':
      if (err.reason === 'Invalid HTTP version') return { status: 505, error: 'Only HTTP/1.1 and HTTP/1.0 are served' };
  }
  return { status: 400, error: `Malformed request: ${err.reason ?? 'unreadable'}` };
}

/** The method and target of an unparsable request line, when they read as such (a method llhttp does not know). */
export function requestLine(raw: Buffer | undefined): { method: string; target: string } | null {
  const m = raw && /^([!-~]{1,32}) ([!-~]+) HTTP\/1\.[01]\r\n/.exec(raw.toString('latin1', 0, 8192));
  return m ? { method: m[1]!, target: m[2]! } : null;
}

/** Whether the Content-Length lines of a request head carry different values. */
function lengthsDiffer(raw: Buffer): boolean {
  const values = new Set<string>();
  for (const m of raw.toString('latin1').matchAll(/\r\ncontent-length:[ \t]*([^\r\n]*)/gi)) values.add(m[1]!.trim());
  return values.size > 1;
}
