/**
 * The WebSocket face of a fake gateway-style platform (Discord's gateway, Slack Socket Mode,
 * Matrix-over-sync proxies), beside {@link FakePlatformServer}'s HTTP face: a `ws` server on
 * 127.0.0.1 that a plugin's real SDK client connects to. A fake scripts the platform's side of
 * the protocol (hello, identify, dispatch, envelope acks) on each {@link FakeSocketConnection}
 * and the faults that matter for receivers: a dropped connection without a close frame (a
 * network blip), a close with a platform code (Discord `4004`, resume required), refused
 * handshakes (a bad token answered 401).
 *
 * Frames are JSON by default; `sendRaw` sends text as is. Nothing here imports a test runner.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { trackCloser } from "@herald/core/testing";
import { type RawData, type WebSocket, WebSocketServer } from "ws";

/** Options of {@link FakeSocketServer}. */
export type FakeSocketServerOptions = {
  /** Port on 127.0.0.1. @defaultValue 0 (any free port) */
  port?: number;
  /**
   * Decides a handshake from its request (path, query, headers): `true` accepts, a number
   * answers that HTTP status instead (401 for a bad token). @defaultValue accept every handshake
   */
  authorize?: (request: IncomingMessage) => true | number;
};

/** A frame as received: parsed JSON, or the text when it is not JSON. */
export type FakeSocketFrame = unknown;

/** How a connection ended. */
export type FakeSocketClose = {
  /** The close code (1006 when the connection dropped without a close frame). */
  code: number;
  reason: string;
};

/** One client connection, from the platform's side. */
export class FakeSocketConnection {
  /** Connection number, from 1, in order of arrival. */
  readonly id: number;
  /** The handshake request's URL path and query, e.g. `/?v=10&encoding=json`. */
  readonly url: string;
  /** The handshake request's headers (lower-case names). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Every frame received, oldest first. */
  readonly received: FakeSocketFrame[] = [];
  /** Settles when the connection ends, either way. */
  readonly closed: Promise<FakeSocketClose>;
  readonly #socket: WebSocket;
  readonly #waiters: Array<{
    test: (f: FakeSocketFrame) => boolean;
    resolve: (f: FakeSocketFrame) => void;
  }> = [];
  #seen = 0;

  constructor(id: number, socket: WebSocket, request: IncomingMessage) {
    this.id = id;
    this.url = request.url ?? "/";
    this.headers = { ...request.headers };
    this.#socket = socket;
    this.closed = new Promise((resolve) => {
      socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    socket.on("message", (data, isBinary) => this.#onFrame(data, isBinary));
  }

  /** Whether the connection is open. */
  get open(): boolean {
    return this.#socket.readyState === this.#socket.OPEN;
  }

  /** Sends `data` as a JSON text frame. Dropped silently when the connection is no longer open. */
  send(data: unknown): void {
    this.sendRaw(JSON.stringify(data));
  }

  /** Sends a text frame as is. */
  sendRaw(text: string): void {
    if (this.open) this.#socket.send(text);
  }

  /**
   * The next frame received after the ones already taken by `next` that matches `test` (frames
   * that arrived earlier are looked at first, so nothing is missed between two calls).
   *
   * @param timeoutMs - @defaultValue 5_000
   * @throws Error naming what was awaited when no such frame arrives in time.
   */
  next(
    test: (frame: FakeSocketFrame) => boolean = () => true,
    timeoutMs = 5_000,
  ): Promise<FakeSocketFrame> {
    while (this.#seen < this.received.length) {
      const frame = this.received[this.#seen++];
      if (test(frame)) return Promise.resolve(frame);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: (frame: FakeSocketFrame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`connection ${this.id}: no matching frame within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Closes with a close frame (a platform's own close code, e.g. Discord `4004`). */
  close(code = 1000, reason = ""): Promise<FakeSocketClose> {
    this.#socket.close(code, reason);
    return this.closed;
  }

  /** Drops the TCP connection without a close frame, as a network blip does (client sees 1006). */
  drop(): Promise<FakeSocketClose> {
    this.#socket.terminate();
    return this.closed;
  }

  #onFrame(data: RawData, isBinary: boolean): void {
    const text = Buffer.isBuffer(data)
      ? data.toString("utf8")
      : Array.isArray(data)
        ? Buffer.concat(data).toString("utf8")
        : Buffer.from(data).toString("utf8");
    let frame: FakeSocketFrame = text;
    if (!isBinary) {
      try {
        frame = JSON.parse(text);
      } catch {
        frame = text;
      }
    }
    this.received.push(frame);
    if (this.#waiters.length === 0) return; // kept for the next `next()` to scan
    this.#seen = this.received.length; // a waiting `next()` scans it now
    const i = this.#waiters.findIndex((w) => w.test(frame));
    const waiter = this.#waiters[i];
    if (!waiter) return;
    this.#waiters.splice(i, 1);
    waiter.resolve(frame);
  }
}

/**
 * A fake platform's WebSocket server on 127.0.0.1.
 *
 * @example
 * const server = new FakeSocketServer();
 * server.onConnection((conn) => conn.send({ op: 10, d: { heartbeat_interval: 41_250 } }));
 * const url = await server.listen(); // ws://127.0.0.1:41234
 * const conn = await server.nextConnection();
 * await conn.next((f) => (f as { op?: number }).op === 2); // IDENTIFY
 * await conn.drop(); // the client must resume
 */
export class FakeSocketServer {
  /** Every connection accepted, open or not, in order. */
  readonly connections: FakeSocketConnection[] = [];
  readonly #options: FakeSocketServerOptions;
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #handlers = new Set<(conn: FakeSocketConnection) => void>();
  readonly #arrivals: Array<(conn: FakeSocketConnection) => void> = [];
  readonly #rejections: number[] = [];
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #untrack: (() => void) | undefined;
  #port = 0;
  #taken = 0;

  constructor(options: FakeSocketServerOptions = {}) {
    this.#options = options;
  }

  /** `ws://127.0.0.1:<port>` (no trailing slash). @throws before `listen()`. */
  get url(): string {
    if (!this.#port) throw new Error("fake socket server is not listening yet; await listen()");
    return `ws://127.0.0.1:${this.#port}`;
  }

  /** Connections open now. */
  get openConnections(): FakeSocketConnection[] {
    return this.connections.filter((c) => c.open);
  }

  /** Runs `handler` for every new connection (a fake's protocol script). @returns an unsubscribe function. */
  onConnection(handler: (conn: FakeSocketConnection) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /**
   * The next connection not yet taken by this method (connections that arrived earlier are
   * taken first).
   * @param timeoutMs - @defaultValue 5_000
   * @throws Error when none arrives in time.
   */
  nextConnection(timeoutMs = 5_000): Promise<FakeSocketConnection> {
    const ready = this.connections[this.#taken];
    if (ready) {
      this.#taken += 1;
      return Promise.resolve(ready);
    }
    return new Promise((resolve, reject) => {
      const arrive = (conn: FakeSocketConnection) => {
        clearTimeout(timer);
        resolve(conn);
      };
      const timer = setTimeout(() => {
        this.#arrivals.splice(this.#arrivals.indexOf(arrive), 1);
        reject(new Error(`no WebSocket connection within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#arrivals.push(arrive);
    });
  }

  /** Answers the next `times` handshakes with HTTP `status` instead of upgrading (e.g. 401, 503). */
  rejectHandshakes(status: number, times = 1): void {
    for (let i = 0; i < times; i++) this.#rejections.push(status);
  }

  /** Sends `data` as JSON to every open connection. */
  broadcast(data: unknown): void {
    for (const conn of this.openConnections) conn.send(data);
  }

  /** Drops every open connection without a close frame (a platform restart, a network blip). */
  async dropConnections(): Promise<void> {
    await Promise.all(this.openConnections.map((c) => c.drop()));
  }

  /** Starts listening on 127.0.0.1. @returns the `ws://` URL. */
  async listen(): Promise<string> {
    if (this.#server) return this.url;
    const server = createServer((_req, res) => {
      res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket upgrade required");
    });
    server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.once("close", () => this.#sockets.delete(socket));
    });
    server.on("upgrade", (request, socket, head) => this.#upgrade(request, socket as Socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#options.port ?? 0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
    // Closed by the suite's teardown if the test never reaches its own close (a timeout).
    this.#untrack = trackCloser(() => this.close());
    return this.url;
  }

  /** Drops every connection and stops listening. */
  async close(): Promise<void> {
    this.#untrack?.();
    this.#untrack = undefined;
    const server = this.#server;
    this.#server = undefined;
    for (const client of this.#wss.clients) client.terminate();
    for (const socket of this.#sockets) socket.destroy();
    this.#wss.close();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #upgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    const scripted = this.#rejections.shift();
    const verdict = scripted ?? this.#options.authorize?.(request) ?? true;
    if (verdict !== true) {
      socket.end(`HTTP/1.1 ${verdict} Rejected\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      const conn = new FakeSocketConnection(this.connections.length + 1, ws, request);
      this.connections.push(conn);
      for (const handler of this.#handlers) handler(conn);
      const arrive = this.#arrivals.shift();
      if (arrive) {
        this.#taken += 1;
        arrive(conn);
      }
    });
  }
}
