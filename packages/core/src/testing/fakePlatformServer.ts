/**
 * Serves a {@link FakePlatform} over HTTP on 127.0.0.1 so adapters in child processes can reach
 * it, and gives those adapters a transport. `accept-then-drop` faults destroy the socket after
 * the message is stored (the client sees a reset: `maybe_sent`); a stopped server refuses the
 * connection (`not_dispatched`).
 *
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeTransport } from "./fakeAdapter.ts";
import { type FakePlatform, FakePlatformError, type PlatformCall } from "./fakePlatform.ts";
import { trackCloser } from "./teardown.ts";

/**
 * Starts the HTTP face of a fake platform.
 *
 * @param options.latencyMs - delay before each call is applied and answered, like a real
 * platform's round trip. @defaultValue 0
 */
export async function serveFakePlatform(
  platform: FakePlatform,
  options: { latencyMs?: number } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", async () => {
      if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
      try {
        const answer = platform.call(JSON.parse(body) as PlatformCall);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      } catch (error) {
        if (error instanceof FakePlatformError && error.status === 0 && error.dispatched) {
          req.socket.destroy(); // stored, then the answer is lost
          return;
        }
        const e = error as FakePlatformError;
        res.writeHead(e.status || 599, { "content-type": "application/json" }).end(
          JSON.stringify({
            status: e.status,
            message: e.message,
            code: e.code,
            retryAfterS: e.retryAfterS,
            dispatched: e.dispatched,
          }),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      untrack();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  // Closed by the suite's teardown if the test never reaches its own close (a timeout).
  const untrack = trackCloser(close);
  return { url: `http://127.0.0.1:${port}/call`, close };
}

/**
 * A transport that calls a served fake platform with `fetch`.
 *
 * @param options.keepAlive - reuse connections (fetch's keep-alive pool) instead of one TCP
 *   connection per call (`Connection: close`, the default, so that a fault such as a reset after
 *   accept never leaks into the next call). Benchmarks turn it on: a platform SDK keeps its
 *   connections open, and a connect per call costs more CPU than the rest of a send.
 */
export function httpTransport(url: string, options: { keepAlive?: boolean } = {}): FakeTransport {
  const headers: Record<string, string> = options.keepAlive ? {} : { connection: "close" };
  return async (call) => {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        body: JSON.stringify(call),
        headers,
      });
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      throw new FakePlatformError(0, `${code ?? "network error"}: ${String(error)}`, {
        code,
        dispatched: code !== "ECONNREFUSED",
      });
    }
    const json = (await res.json()) as Record<string, unknown>;
    if (res.ok) return json;
    throw new FakePlatformError(Number(json.status ?? res.status), String(json.message), {
      code: json.code as string | undefined,
      retryAfterS: json.retryAfterS as number | undefined,
      dispatched: Boolean(json.dispatched),
    });
  };
}
