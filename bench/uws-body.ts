import type uWS from 'uWebSockets.js';

/** Read a whole request body (chunks copied, as uWS reuses them) and hand it over unless aborted. */
export function readBody(res: uWS.HttpResponse, done: (body: string, aborted: () => boolean) => void): void {
  let aborted = false;
  res.onAborted(() => (aborted = true));
  const chunks: Buffer[] = [];
  res.onData((chunk, last) => {
    chunks.push(Buffer.from(new Uint8Array(chunk)));
    if (last) done(Buffer.concat(chunks).toString('utf8'), () => aborted);
  });
}
