import uWS from 'uWebSockets.js';
import { readBody } from './uws-body';

/**
 * The floor to compare Laurel with: bare uWebSockets.js reading a JSON body,
 * parsing it and answering, with no auth, validation or storage.
 */
const port = Number(process.env.PORT ?? 0);
uWS
  .App()
  .post('/*', (res) =>
    readBody(res, (raw, aborted) => {
      const body = JSON.parse(raw) as { value: number };
      if (aborted()) return;
      res.cork(() => {
        res.writeStatus('201 Created').writeHeader('Content-Type', 'application/json').end(JSON.stringify({ total: body.value }));
      });
    }),
  )
  .listen('127.0.0.1', port, (sock) => {
    if (!sock) process.exit(1);
    process.stdout.write(`${uWS.us_socket_local_port(sock)}\n`);
  });
