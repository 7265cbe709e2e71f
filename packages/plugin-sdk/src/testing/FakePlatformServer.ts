/**
 * The HTTP face every fake platform needs: a loopback server on 127.0.0.1 (built on Hono and
 * `@hono/node-server`) whose routes are tagged with a platform-neutral {@link PlatformOp}, so
 * scripted faults apply to them — error statuses, 429 with retry-after, delays, a socket reset
 * before or after the call was applied — plus refused connections (`not_dispatched`). A channel's
 * fake registers its platform's real routes (`POST /bot<token>/sendMessage`, `chat.postMessage`,
 * …) and keeps what they change in a {@link VisibleState}; its real SDK client then talks to
 * `server.url`.
 *
 * @module
 */
import type { AddressInfo } from "node:net";
import { sleep } from "@herald/core";
import { trackCloser } from "@herald/core/testing";
import { type HttpBindings, type ServerType, serve } from "@hono/node-server";
import { type Context, Hono } from "hono";
import {
  fakeTrafficCheck,
  isScriptedAnswer,
  recordFakeTrafficViolations,
  scriptedAnswer,
} from "./fakeTraffic.ts";
import { FaultQueue, type PlatformFault, type PlatformOp, retryAfterHeader } from "./faults.ts";

/** Hono environment of a fake platform: the Node request/response objects are available. */
export type FakePlatformEnv = { Bindings: HttpBindings };

/** A route handler of a fake platform. */
export type FakeRouteHandler = (c: Context<FakePlatformEnv>) => Response | Promise<Response>;

/** An error the fake answers, in platform-neutral terms, before the wire renders it. */
export type FakeErrorAnswer = {
  status: number;
  /** Platform-neutral code, e.g. `"rate_limited"`, `"not_found"`. */
  code: string;
  description: string;
  /** Set for rate limits whose body announces the wait. */
  retryAfterMs?: number;
};

/** How a platform renders errors on the wire. */
export type FakePlatformWire = {
  /**
   * The JSON error body for an answer, in the platform's vocabulary (Telegram
   * `{ ok: false, error_code, description, parameters: { retry_after } }`, Matrix
   * `{ errcode: "M_LIMIT_EXCEEDED", retry_after_ms }`).
   * @defaultValue `{ ok: false, error: { code, description, retry_after_ms? } }`
   */
  errorBody(answer: FakeErrorAnswer): unknown;
};

/** A call the server saw, for diagnostics (tests assert visible state, not calls). */
export type FakeCallRecord = {
  op: PlatformOp;
  method: string;
  path: string;
  /** Epoch ms. */
  at: number;
  /** `ok`, `status 503`, `rate_limit`, `reset_before_accept`, `reset_after_accept`, `delayed`. */
  outcome: string;
};

/** Options of {@link FakePlatformServer}. */
export type FakePlatformServerOptions = {
  wire?: Partial<FakePlatformWire>;
  /** Port on 127.0.0.1. @defaultValue 0 (any free port) */
  port?: number;
  /** Delay before every faultable call is handled, like a real round trip, in ms. @defaultValue 0 */
  latencyMs?: number;
  /** @defaultValue Date.now */
  clock?: () => number;
  /**
   * The platform this fake stands for (`"discord"`, `"slack"`, …): every request and answer is
   * handed to the check registered for it with `setFakeTrafficCheck` (none: not checked).
   */
  platform?: string;
};

/** Scripted faults plus refused connections. */
export class PlatformFaults extends FaultQueue {
  readonly #refuse: () => Promise<() => Promise<void>>;
  readonly #drop: () => void;

  constructor(refuse: () => Promise<() => Promise<void>>, drop: () => void) {
    super();
    this.#refuse = refuse;
    this.#drop = drop;
  }

  /**
   * Closes every open connection now — event streams, long polls, keep-alive sockets — as a
   * platform restart or a network blip does. The server keeps listening, so clients reconnect.
   */
  dropConnections(): void {
    this.#drop();
  }

  /**
   * Stops accepting connections: new requests fail with `ECONNREFUSED` (provably
   * `not_dispatched`) until the returned function is called, which listens again on the same
   * port. Streams already open (event streams) stay open; idle keep-alive connections are closed.
   */
  refuseConnections(): Promise<() => Promise<void>> {
    return this.#refuse();
  }

  #resetEvery = 0;
  #resetOp: PlatformOp = "send";
  #accepted = 0;

  /**
   * From now on every `n`-th call of `op` the platform accepts — applied and answered 2xx, with
   * no `"ok": false` in its JSON body (Slack answers its errors with HTTP 200) — has its socket
   * reset before the answer: the message is visible, the client sees a reset (`maybe_sent`,
   * CASES C01). Calls refused by a limit or a bad request do not count. `0` stops it.
   * @throws RangeError when `n` is not an integer >= 0.
   */
  resetEveryNthAccepted(n: number, op: PlatformOp = "send"): this {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be an integer >= 0, got ${n}`);
    this.#resetEvery = n;
    this.#resetOp = op;
    this.#accepted = 0;
    return this;
  }

  /** @internal Counts an accepted answer of `op`; whether its answer is to be lost. */
  async takeResetAfterAccept(op: PlatformOp, response: Response): Promise<boolean> {
    if (this.#resetEvery === 0 || op !== this.#resetOp) return false;
    if (response.status < 200 || response.status > 299) return false;
    if ((response.headers.get("content-type") ?? "").includes("json")) {
      const body = (await response
        .clone()
        .json()
        .catch(() => undefined)) as { ok?: unknown } | undefined;
      if (body?.ok === false) return false;
    }
    this.#accepted += 1;
    return this.#accepted % this.#resetEvery === 0;
  }
}

const DEFAULT_CODES: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "too_large",
  429: "rate_limited",
  500: "internal_error",
  502: "bad_gateway",
  503: "unavailable",
  504: "gateway_timeout",
};

function defaultErrorBody(answer: FakeErrorAnswer): unknown {
  return {
    ok: false,
    error: {
      code: answer.code,
      description: answer.description,
      ...(answer.retryAfterMs !== undefined ? { retry_after_ms: answer.retryAfterMs } : {}),
    },
  };
}

/**
 * Hands one exchange to the traffic check registered for `platform` (first middleware, so it
 * sees every route, faults included, and the final answer after the fake's own middleware).
 * Streams (anything not JSON or text) are not read.
 */
async function checkTraffic(
  platform: string,
  c: Context<FakePlatformEnv>,
  next: () => Promise<void>,
): Promise<void> {
  const check = fakeTrafficCheck(platform);
  // Paths under `/_fake/` are a fake's own plumbing (a call re-dispatched to tag its op), not
  // the platform's: the call the client made is checked where it entered.
  if (!check || c.req.path.startsWith("/_fake/")) return next();
  const requestBody = await c.req.raw.clone().text();
  await next();
  const res = c.res;
  // A reset before the call was accepted answers nothing: the fake's 599 never reaches the client.
  if (res.status === 599) return;
  const type = res.headers.get("content-type") ?? "";
  const readable = type.includes("json") || type.startsWith("text/plain") || res.body === null;
  const responseBody = readable ? await res.clone().text() : undefined;
  const url = new URL(c.req.url);
  recordFakeTrafficViolations(
    await check({
      platform,
      method: c.req.method,
      path: url.pathname,
      query: url.searchParams,
      requestHeaders: c.req.raw.headers,
      requestBody,
      status: res.status,
      responseHeaders: res.headers,
      responseBody,
      scriptedAnswer: isScriptedAnswer(res),
    }),
  );
}

/**
 * A fake platform's HTTP server on 127.0.0.1.
 *
 * @example
 * const server = new FakePlatformServer();
 * server.route("POST", "/bot:token/sendMessage", "send", async (c) => c.json({ ok: true, result: … }));
 * await server.listen();
 * server.faults.failNext({ kind: "rate_limit", retryAfterMs: 1_200 }, { op: "send" });
 */
export class FakePlatformServer {
  /** The Hono app: add routes that are not platform calls (pages, event streams) here. */
  readonly app = new Hono<FakePlatformEnv>();
  readonly faults: PlatformFaults;
  /** The last successful JSON answer per op (the `repeat_answer` fault answers it again). */
  readonly #lastAnswers = new Map<
    PlatformOp,
    { status: number; headers: Array<[string, string]>; body: string }
  >();
  /** Calls seen, oldest first (diagnostics). */
  readonly calls: FakeCallRecord[] = [];
  readonly #options: FakePlatformServerOptions;
  readonly #errorBody: (answer: FakeErrorAnswer) => unknown;
  #server: ServerType | undefined;
  #port = 0;
  #refusing = false;
  #closed = false;
  #untrack: (() => void) | undefined;

  constructor(options: FakePlatformServerOptions = {}) {
    this.#options = options;
    this.#errorBody = options.wire?.errorBody ?? defaultErrorBody;
    const platform = options.platform;
    if (platform !== undefined) this.app.use("*", (c, next) => checkTraffic(platform, c, next));
    this.faults = new PlatformFaults(
      () => this.#refuse(),
      () => {
        const server = this.#server;
        if (server && "closeAllConnections" in server) server.closeAllConnections();
      },
    );
  }

  /** Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash). @throws before `listen()`. */
  get url(): string {
    if (!this.#port) throw new Error("fake platform server is not listening yet; await listen()");
    return `http://127.0.0.1:${this.#port}`;
  }

  /**
   * Registers a platform call: `handler` runs only when no scripted fault prevents it.
   *
   * @param op - what the call does, for fault targeting.
   */
  route(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    op: PlatformOp,
    handler: FakeRouteHandler,
  ): this {
    this.app.on(method, path, (c) => this.#handle(c, op, handler));
    return this;
  }

  /**
   * Renders an error answer in the platform's wire format (for a fake's own errors: unknown
   * chat, message not found…).
   */
  error(answer: FakeErrorAnswer, headers?: Record<string, string>): Response {
    return new Response(JSON.stringify(this.#errorBody(answer)), {
      status: answer.status,
      headers: { "content-type": "application/json", ...headers },
    });
  }

  /** Starts listening on 127.0.0.1. @returns the base URL. */
  async listen(): Promise<string> {
    if (this.#server) return this.url;
    await this.#listenOn(this.#options.port ?? 0);
    // Closed by the suite's teardown if the test never reaches its own close (a timeout).
    this.#untrack = trackCloser(() => this.close());
    return this.url;
  }

  /** Stops the server and closes every connection, streams included. */
  async close(): Promise<void> {
    this.#untrack?.();
    this.#untrack = undefined;
    this.#closed = true;
    const server = this.#server;
    this.#server = undefined;
    if (!server || !("closeAllConnections" in server)) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  async #listenOn(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const server = serve(
        { fetch: this.app.fetch, hostname: "127.0.0.1", port },
        (info: AddressInfo) => {
          this.#port = info.port;
          resolve();
        },
      );
      server.once("error", reject);
      this.#server = server;
    });
  }

  async #refuse(): Promise<() => Promise<void>> {
    const server = this.#server;
    if (!server || this.#refusing) throw new Error("fake platform server is not listening");
    this.#refusing = true;
    server.close();
    if ("closeIdleConnections" in server) server.closeIdleConnections();
    return async () => {
      if (!this.#refusing || this.#closed) return;
      this.#refusing = false;
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(this.#port, "127.0.0.1", () => {
          server.off("error", reject);
          resolve();
        });
      });
    };
  }

  async #handle(
    c: Context<FakePlatformEnv>,
    op: PlatformOp,
    handler: FakeRouteHandler,
  ): Promise<Response> {
    const record = (outcome: string) =>
      this.calls.push({
        op,
        method: c.req.method,
        path: new URL(c.req.url).pathname,
        at: (this.#options.clock ?? Date.now)(),
        outcome,
      });
    if (this.#options.latencyMs) await sleep(this.#options.latencyMs);
    const fault = this.faults.take(op);
    if (fault?.kind === "delay") {
      await sleep(fault.delayMs);
      record("delayed");
      return handler(c);
    }
    if (fault?.kind === "status" || fault?.kind === "rate_limit") {
      record(fault.kind === "status" ? `status ${fault.status}` : "rate_limit");
      return this.#faultAnswer(fault);
    }
    if (fault?.kind === "reset_before_accept") {
      record(fault.kind);
      c.env.incoming.socket.destroy();
      return new Response(null, { status: 599 });
    }
    const repeated = fault?.kind === "repeat_answer" ? this.#lastAnswers.get(op) : undefined;
    if (repeated) {
      record("repeated an earlier answer");
      return new Response(repeated.body, { status: repeated.status, headers: repeated.headers });
    }
    const response = await handler(c);
    if (
      fault?.kind === "reset_after_accept" ||
      (await this.faults.takeResetAfterAccept(op, response))
    ) {
      record("reset_after_accept");
      c.env.incoming.socket.destroy();
      return response;
    }
    record(`ok ${response.status}`);
    await this.#remember(op, response);
    return response;
  }

  /** Keeps a successful JSON answer of `op` for the `repeat_answer` fault (never a stream). */
  async #remember(op: PlatformOp, response: Response): Promise<void> {
    if (response.status < 200 || response.status >= 300) return;
    if (!response.headers.get("content-type")?.includes("application/json")) return;
    this.#lastAnswers.set(op, {
      status: response.status,
      headers: [...response.headers.entries()],
      body: await response.clone().text(),
    });
  }

  #faultAnswer(fault: Extract<PlatformFault, { kind: "status" | "rate_limit" }>): Response {
    if (fault.kind === "status") {
      const answer: FakeErrorAnswer = {
        status: fault.status,
        code: fault.code ?? DEFAULT_CODES[fault.status] ?? `http_${fault.status}`,
        description: fault.description ?? `scripted fault: HTTP ${fault.status}`,
      };
      const body = fault.body !== undefined ? fault.body : this.#errorBody(answer);
      const response = new Response(JSON.stringify(body), {
        status: fault.status,
        headers: { "content-type": "application/json", ...fault.headers },
      });
      // A fault's own body is the test's words, not the fake's claim about the platform.
      return fault.body !== undefined ? scriptedAnswer(response) : response;
    }
    const via = fault.via ?? "both";
    const status = fault.status ?? 429;
    const answer: FakeErrorAnswer = {
      status,
      code: DEFAULT_CODES[429] ?? "rate_limited",
      description: `Too Many Requests: retry after ${fault.retryAfterMs} ms`,
      ...(via !== "header" ? { retryAfterMs: fault.retryAfterMs } : {}),
    };
    const headers: Record<string, string> =
      via !== "body" ? { "retry-after": retryAfterHeader(fault.retryAfterMs) } : {};
    return this.error(answer, headers);
  }
}
