import net from 'node:net';

/**
 * A TCP relay to a real server that a test can cut and restore, to make
 * Redis or Postgres unreachable without touching the shared service.
 */
export class Relay {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly targetPort: number) {}

  async start(port = 0): Promise<number> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Refuse new connections and drop the open ones. */
  async cut(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
    this.server = null;
  }

  async restore(): Promise<void> {
    await this.start(this.port);
  }
}
