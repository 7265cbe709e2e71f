/**
 * The gateway's listening socket, bound before anything slow happens ([H20] "`/healthz`
 * answering within 1 s of every restart"). `herald start` binds it right after reading the
 * config — before the store opens (migrations, locks, a slow PostgreSQL), before the handler
 * module and the channel plugins load — and the gateway later serves its full app on it
 * (`startHttpServer({ listener })`). Until then it answers on its own:
 *
 * - `GET /livez`: 200 `{ "status": "ok", "phase": "starting" }` (the process is alive);
 * - `/readyz`, `/healthz`: 503 `{ "status": "starting" }` (not ready: take no traffic yet);
 * - everything else, webhooks included: 503 with `Retry-After: 1` (platforms retry a 503).
 *
 * This module imports `node:http` only, so binding costs no module loading.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** A node request listener (what `@hono/node-server`'s `getRequestListener` returns). */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/** A bound HTTP socket whose request handler can be swapped once the gateway is up. */
export type HttpListener = {
  /** The base URL, e.g. `http://127.0.0.1:8787` (the real port when bound on port 0). */
  readonly url: string;
  /** The host it was bound on, as given. */
  readonly host: string;
  /** Serves every later request with `handler` (requests already running finish as they are). */
  serve(handler: RequestListener): void;
  /** Stops accepting, closes every open connection. Idempotent. */
  close(): Promise<void>;
};

const json = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

/** What the listener answers before the gateway serves on it (see the module comment). */
export const startingListener: RequestListener = (req, res) => {
  // Nothing is read from the body: a webhook's payload is answered 503 and retried later.
  req.resume();
  const path = (req.url ?? "/").split("?")[0];
  if (path === "/livez" && (req.method === "GET" || req.method === "HEAD"))
    return json(res, 200, { status: "ok", phase: "starting" });
  if (path === "/readyz" || path === "/healthz")
    return json(res, 503, { status: "starting", phase: "starting" });
  return json(res, 503, { error: "starting" }, { "retry-after": "1" });
};

/**
 * Binds `host:port` (port 0: any free port) and answers with {@link startingListener} until
 * `serve()` is called.
 *
 * @throws the listen error (`EADDRINUSE`, `EACCES`, `EADDRNOTAVAIL`…) as Node raises it.
 * @example
 * const listener = await bindHttpListener({ host: "127.0.0.1", port: 8787 });
 * // …open the store, load plugins…
 * createGateway({ …, http: { host: "127.0.0.1", port: 8787, listener } });
 */
export function bindHttpListener(address: { host: string; port: number }): Promise<HttpListener> {
  let handler: RequestListener = startingListener;
  const server = createServer((req, res) => handler(req, res));
  let closing: Promise<void> | undefined;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(address.port, address.host, () => {
      server.off("error", reject);
      const info = server.address();
      const bound = typeof info === "object" && info ? info : { address: address.host, port: 0 };
      const host = bound.address.includes(":") ? `[${bound.address}]` : bound.address;
      resolve({
        url: `http://${host}:${bound.port}`,
        host: address.host,
        serve(next) {
          handler = next;
        },
        close() {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}
