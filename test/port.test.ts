import t from 'tap';
import { spawn } from 'node:child_process';
import path from 'node:path';
import uWS from 'uWebSockets.js';
import { processDeployment, spawnServer } from './helpers/process';

const ROOT = path.resolve(__dirname, '../..');

/** Start Laurel on a port and wait for it to give up: its exit code and stderr. */
function startExpectingFailure(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: ROOT, env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

// A server listening with SO_REUSEPORT would let a second one on the same port
// silently take half of its connections: Laurel never does.
t.test('a port already taken is refused with one sentence naming it', async (t) => {
  const first = await spawnServer(processDeployment(t));
  t.teardown(() => first.proc.kill('SIGTERM'));
  const port = new URL(first.url).port;

  for (const extra of [{}, { WORKERS: '2' }, { BACKGROUND: 'process' }] as Record<string, string>[]) {
    const second = await startExpectingFailure({ ...processDeployment(t), PORT: port, ...extra });
    t.equal(second.code, 1, `the second server exits (${JSON.stringify(extra)})`);
    t.match(second.stderr, new RegExp(`^laurel: (failed to start: )?port ${port} on 127\\.0\\.0\\.1 is already in use\\n$`), second.stderr);
  }
  t.equal((await fetch(`${first.url}/healthz`)).status, 200, 'the first keeps serving');
});

t.test("a supervisor's workers share their port, and nobody else joins them", async (t) => {
  const workers = await spawnServer(processDeployment(t, { WORKERS: '2' }));
  t.teardown(() => workers.proc.kill('SIGTERM'));
  const port = new URL(workers.url).port;
  const intruder = await startExpectingFailure({ ...processDeployment(t), PORT: port });
  t.equal(intruder.code, 1);
  t.match(intruder.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
  t.equal((await fetch(`${workers.url}/healthz`)).status, 200);
});

t.test('one HTTP worker beside a background process holds its port alone', async (t) => {
  const server = await spawnServer(processDeployment(t, { BACKGROUND: 'process' }));
  t.teardown(() => server.proc.kill('SIGTERM'));
  const port = Number(new URL(server.url).port);
  // A listener asking to share the port (SO_REUSEPORT, uWebSockets.js's default) is refused:
  // nobody can take half of this worker's connections.
  const joined = await new Promise<boolean>((resolve) =>
    uWS.App().listen('127.0.0.1', port, (sock) => {
      if (sock) uWS.us_listen_socket_close(sock);
      resolve(!!sock);
    }),
  );
  t.equal(joined, false);
  t.equal((await fetch(`${server.url}/healthz`)).status, 200);
});
