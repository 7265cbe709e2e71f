import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { classifyNetworkError, networkFailureOf, PlatformNetworkError } from "./network.ts";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        }),
    ),
  );
});

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function thrownBy(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/** An error as Node's fetch throws it: `TypeError: fetch failed` with undici's error as cause. */
const fetchFailed = (code: string, name = "Error") =>
  new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code, name }) });

describe("networkFailureOf, on what Node's fetch really throws", () => {
  it("a refused connection never left: not_dispatched", async () => {
    const url = await serve(() => {});
    const port = new URL(url).port;
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const error = await thrownBy(() => fetch(`http://127.0.0.1:${port}/`));
    expect(networkFailureOf(error)).toEqual({
      reason: "refused",
      evidence: "not_dispatched",
      code: "ECONNREFUSED",
    });
  });

  it("a socket reset after the request was written may have been applied: maybe_sent", async () => {
    const url = await serve((req) => req.socket.destroy());
    const error = await thrownBy(() => fetch(url, { method: "POST", body: "x" }));
    expect(networkFailureOf(error)).toMatchObject({ reason: "reset", evidence: "maybe_sent" });
  });

  it("a client timeout is maybe_sent, an abort too", async () => {
    const url = await serve(() => {}); // never answers
    const timedOut = await thrownBy(() => fetch(url, { signal: AbortSignal.timeout(50) }));
    expect(networkFailureOf(timedOut)).toEqual({ reason: "timeout", evidence: "maybe_sent" });
    const controller = new AbortController();
    const pending = fetch(url, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const aborted = await thrownBy(() => pending);
    expect(networkFailureOf(aborted)).toMatchObject({ reason: "aborted", evidence: "maybe_sent" });
  });
});

describe("networkFailureOf, every undici / Node code", () => {
  it.each([
    ["ECONNREFUSED", "refused", "not_dispatched"],
    ["ENOTFOUND", "dns", "not_dispatched"],
    ["EAI_AGAIN", "dns", "not_dispatched"],
    ["UND_ERR_CONNECT_TIMEOUT", "connect_timeout", "not_dispatched"],
    ["EHOSTUNREACH", "unreachable", "not_dispatched"],
    ["ENETUNREACH", "unreachable", "not_dispatched"],
    ["CERT_HAS_EXPIRED", "tls", "not_dispatched"],
    ["ERR_SSL_WRONG_VERSION_NUMBER", "tls", "not_dispatched"],
    ["ECONNRESET", "reset", "maybe_sent"],
    ["EPIPE", "reset", "maybe_sent"],
    ["UND_ERR_SOCKET", "reset", "maybe_sent"],
    ["UND_ERR_CLOSED", "reset", "maybe_sent"],
    ["ETIMEDOUT", "timeout", "maybe_sent"],
    ["UND_ERR_HEADERS_TIMEOUT", "timeout", "maybe_sent"],
    ["UND_ERR_BODY_TIMEOUT", "timeout", "maybe_sent"],
    ["UND_ERR_ABORTED", "aborted", "maybe_sent"],
    ["UND_ERR_RES_CONTENT_LENGTH_MISMATCH", "bad_response", "maybe_sent"],
    ["EWHATEVER", "other", "maybe_sent"],
  ])("%s → %s, %s", (code, reason, evidence) => {
    expect(networkFailureOf(fetchFailed(code))).toEqual({ reason, evidence, code });
  });

  it("finds the code inside an AggregateError (every address of a host refused)", () => {
    const cause = new AggregateError([
      Object.assign(new Error("::1"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("127.0.0.1"), { code: "ECONNREFUSED" }),
    ]);
    expect(networkFailureOf(new TypeError("fetch failed", { cause }))).toMatchObject({
      reason: "refused",
      evidence: "not_dispatched",
    });
  });

  it("finds it under grammY's HttpError.error and several causes deep", () => {
    const inner = new Error("wrapped", { cause: fetchFailed("UND_ERR_CONNECT_TIMEOUT") });
    const httpError = Object.assign(new Error("Network request for 'sendMessage' failed!"), {
      name: "HttpError",
      error: inner,
    });
    expect(networkFailureOf(httpError)).toMatchObject({
      reason: "connect_timeout",
      evidence: "not_dispatched",
    });
    expect(networkFailureOf(new Error("Request timed out after 30 seconds"))).toMatchObject({
      reason: "timeout",
    });
  });

  it("survives a cause cycle and non-errors", () => {
    const a: { cause?: unknown; code?: string } = {};
    a.cause = a;
    expect(networkFailureOf(a).reason).toBe("other");
    expect(networkFailureOf("boom")).toEqual({ reason: "other", evidence: "maybe_sent" });
  });
});

describe("PlatformNetworkError", () => {
  class AcmeNetworkError extends PlatformNetworkError {
    constructor(method: string, error: unknown) {
      super("HERALD_ACME_NETWORK", "Acme", method, networkFailureOf(error), { cause: error });
    }
  }

  it("carries the reason in its name and classifies as transient with its evidence", () => {
    const error = new AcmeNetworkError("postMessage", fetchFailed("ECONNREFUSED"));
    expect(error.name).toBe("AcmeNetworkError[refused]");
    expect(error.message).toBe("postMessage: no answer from Acme (refused, ECONNREFUSED)");
    expect(error.dispatched).toBe(false);
    expect(classifyNetworkError(error, (t) => t.replace("Acme", "[x]"))).toEqual({
      kind: "transient",
      evidence: "not_dispatched",
      message: "postMessage: no answer from [x] (refused, ECONNREFUSED)",
      platformCode: "refused",
    });
  });
});
