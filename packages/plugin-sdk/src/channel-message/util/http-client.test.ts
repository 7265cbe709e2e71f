import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { classifyPlatformError, type PlatformApiError } from "./api-error.ts";
import { createHttpClient, type HttpClientOptions } from "./http-client.ts";
import { PlatformNetworkError } from "./network.ts";
import { platformErrors } from "./platform-errors.ts";

const errors = platformErrors("Acme", { code: "HERALD_ACME", platform: "the Acme API" });
const TOKEN = "acme-secret-token-123";
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const servers: Array<() => Promise<void>> = [];

/** A small HTTP server on 127.0.0.1 answering with `handler`. */
async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(async () => {
  for (const close of servers.splice(0)) await close();
});

const client = (baseUrl: string, extra: Partial<HttpClientOptions> = {}) =>
  createHttpClient({
    baseUrl,
    headers: { authorization: `Bearer ${TOKEN}` },
    errors,
    readError: (b) => {
      const e = (b as { error?: { code?: string; description?: string; retry_after_ms?: number } })
        .error;
      return {
        platformCode: e?.code,
        description: e?.description,
        retryAfterMs: e?.retry_after_ms,
      };
    },
    secrets: [TOKEN],
    ...extra,
  });

const json = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

describe("createHttpClient", () => {
  it("sends JSON with the account's headers and query, and returns the parsed answer", async () => {
    const url = await serve((req, body, res) =>
      json(res, 200, {
        method: req.method,
        url: req.url,
        auth: req.headers.authorization,
        type: req.headers["content-type"],
        body: JSON.parse(body),
      }),
    );
    const answer = await client(url)("POST /v1/chats/c1/messages", {
      body: { text: "hi" },
      query: { key: "k1", after: undefined },
    });
    expect(answer).toEqual({
      method: "POST",
      url: "/v1/chats/c1/messages?key=k1",
      auth: `Bearer ${TOKEN}`,
      type: "application/json",
      body: { text: "hi" },
    });
  });

  it("reads the wait from the error body when it has one (ms, over the header)", async () => {
    const url = await serve((_req, _body, res) =>
      json(
        res,
        429,
        { error: { code: "rate_limited", retry_after_ms: 400 } },
        { "retry-after": "9" },
      ),
    );
    const error = await client(url)("POST /v1/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.ApiError);
    expect(error).toMatchObject({ status: 429, platformCode: "rate_limited", retryAfterMs: 400 });
    expect(classifyPlatformError(error)).toMatchObject({ kind: "rate_limit", retryAfterMs: 400 });
  });

  it("reads a Retry-After header when the body names no wait: seconds, or an HTTP date", async () => {
    const now = Date.parse("2026-12-07T12:00:00Z");
    let header = "2";
    const url = await serve((_req, _body, res) =>
      json(res, 429, { error: { code: "rate_limited" } }, { "retry-after": header }),
    );
    const call = client(url, { clock: () => now });
    expect(await call("GET /v1/x").catch((e: PlatformApiError) => e.retryAfterMs)).toBe(2_000);
    header = "Mon, 07 Dec 2026 12:00:03 GMT";
    expect(await call("GET /v1/x").catch((e: PlatformApiError) => e.retryAfterMs)).toBe(3_000);
  });

  it("takes a non-JSON error answer (a proxy's HTML 502) as its status, maybe sent", async () => {
    const url = await serve((_req, _body, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>bad gateway</html>");
    });
    const error = await client(url)("POST /v1/x").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "AcmeApiError[http_502]", status: 502 });
    expect(classifyPlatformError(error)).toMatchObject({
      kind: "transient",
      evidence: "maybe_sent",
    });
  });

  it("redacts the token from a description that quotes it back", async () => {
    const url = await serve((_req, _body, res) =>
      json(res, 401, { error: { code: "unauthorized", description: `bad token ${TOKEN}` } }),
    );
    const error = (await client(url)("GET /v1/me").catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("bad token [redacted]");
    expect(error.message).not.toContain(TOKEN);
  });

  it("bearerToken sends Authorization: Bearer and redacts the token from error descriptions", async () => {
    let auth: string | undefined;
    const url = await serve((req, _body, res) => {
      auth = req.headers.authorization;
      json(res, 401, { error: { code: "unauthorized", description: `bad token ${TOKEN}` } });
    });
    const call = createHttpClient({
      baseUrl: url,
      bearerToken: TOKEN,
      errors,
      readError: (body) => ({
        description: (body as { error: { description: string } }).error.description,
      }),
    });
    const error = (await call("GET /v1/me").catch((e: unknown) => e)) as Error;
    expect(auth).toBe(`Bearer ${TOKEN}`);
    expect(error.message).toContain("bad token [redacted]");
    expect(error.message).not.toContain(TOKEN);
  });

  it("a refused connection is a network error, provably not dispatched", async () => {
    const url = await serve(() => {});
    await servers.pop()?.(); // nothing listens there any more
    const error = await client(url)("POST /v1/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformNetworkError);
    expect(error).toMatchObject({ name: "AcmeNetworkError[refused]", evidence: "not_dispatched" });
  });

  it("a call past its timeout is a network error, maybe sent", async () => {
    const url = await serve(() => {}); // never answers
    const error = await client(url, { timeoutMs: 50 })("POST /v1/x").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "AcmeNetworkError[timeout]", evidence: "maybe_sent" });
  });

  it("the caller's signal aborts the call: a network error, maybe sent", async () => {
    const url = await serve(() => {});
    const controller = new AbortController();
    const pending = client(url)("POST /v1/x", { signal: controller.signal }).catch((e) => e);
    controller.abort();
    expect(await pending).toMatchObject({ reason: "aborted", evidence: "maybe_sent" });
  });

  it("a success whose body is not JSON is a network error (bad response), maybe sent", async () => {
    const url = await serve((_req, _body, res) => {
      res.writeHead(200);
      res.end("{ not json");
    });
    const error = await client(url)("POST /v1/x").catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: "bad_response", evidence: "maybe_sent" });
  });

  it("refuses a timeout that is not positive", () => {
    expect(() => client("http://127.0.0.1:1", { timeoutMs: 0 })).toThrow(
      /timeoutMs must be a positive number, got 0/,
    );
  });
});
