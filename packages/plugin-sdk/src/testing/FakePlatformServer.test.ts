import { afterEach, describe, expect, it } from "vitest";
import { FakePlatformServer } from "./FakePlatformServer.ts";
import { VisibleState } from "./VisibleState.ts";

const bot = { id: "bot", bot: true };
let server: FakePlatformServer;
let state: VisibleState;

async function start(): Promise<string> {
  state = new VisibleState();
  server = new FakePlatformServer();
  server.route("POST", "/chats/:chat/messages", "send", async (c) => {
    const { text } = (await c.req.json()) as { text: string };
    const { message } = state.post({ chat: c.req.param("chat") ?? "", text, author: bot });
    return c.json({ ok: true, id: message.id });
  });
  return server.listen();
}

async function post(url: string, text: string): Promise<Response> {
  return fetch(`${url}/chats/c1/messages`, { method: "POST", body: JSON.stringify({ text }) });
}

async function networkCode(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code ?? "unknown";
  }
}

afterEach(async () => {
  await server.close();
});

describe("FakePlatformServer", () => {
  it("answers a scripted status without applying the call, then applies the next one", async () => {
    const url = await start();
    server.faults.failNext({ kind: "status", status: 503 }, { op: "send" });
    const failed = await post(url, "first");
    expect(failed.status).toBe(503);
    expect(await failed.json()).toMatchObject({ ok: false, error: { code: "unavailable" } });
    expect((await post(url, "second")).status).toBe(200);
    expect(state.messages().map((m) => m.text)).toEqual(["second"]);
  });

  it("repeats the op's last successful answer without applying the call (repeat_answer, C40)", async () => {
    const url = await start();
    server.faults.failNext({ kind: "repeat_answer" }, { op: "send" });
    const first = await (await post(url, "first")).json(); // nothing to repeat yet: applied
    server.faults.failNext({ kind: "repeat_answer" }, { op: "send" });
    const repeated = await post(url, "second");
    expect(repeated.status).toBe(200);
    expect(await repeated.json()).toEqual(first);
    expect(state.messages().map((m) => m.text)).toEqual(["first"]);
    expect(server.calls.map((c) => c.outcome)).toEqual(["ok 200", "repeated an earlier answer"]);
  });

  it("announces a rate limit's wait in Retry-After (whole seconds) and in the body (ms)", async () => {
    const url = await start();
    server.faults
      .failNext({ kind: "rate_limit", retryAfterMs: 1_200 })
      .failNext({ kind: "rate_limit", retryAfterMs: 300, via: "body" });
    const both = await post(url, "x");
    expect(both.status).toBe(429);
    expect(both.headers.get("retry-after")).toBe("2");
    expect(await both.json()).toMatchObject({ error: { retry_after_ms: 1_200 } });
    const bodyOnly = await post(url, "x");
    expect(bodyOnly.headers.get("retry-after")).toBeNull();
    expect(await bodyOnly.json()).toMatchObject({ error: { retry_after_ms: 300 } });
    expect(state.messages()).toEqual([]);
  });

  it("renders a scripted body verbatim (HTTP 200 with an error body)", async () => {
    const url = await start();
    const body = { ok: false, error: "ratelimited" };
    server.faults.failNext({ kind: "status", status: 200, body });
    const res = await post(url, "x");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(body);
  });

  it("stores the message, then resets the socket: the client sees a reset (maybe sent)", async () => {
    const url = await start();
    server.faults.failNext({ kind: "reset_after_accept" });
    expect(await networkCode(post(url, "landed"))).toBe("UND_ERR_SOCKET");
    expect(state.messages().map((m) => m.text)).toEqual(["landed"]);
  });

  it("resets every n-th accepted send after applying it; refusals do not count", async () => {
    const url = await start();
    // Slack's way: a refusal answered with HTTP 200 and `ok: false`.
    server.route("POST", "/refuse", "send", (c) => c.json({ ok: false, error: "no_text" }));
    server.faults.resetEveryNthAccepted(2);
    const outcomes: Array<string | number> = [];
    for (const text of ["a", "b", "-", "c", "d"]) {
      const call = text === "-" ? fetch(`${url}/refuse`, { method: "POST" }) : post(url, text);
      outcomes.push((await networkCode(call)) ?? (await call).status);
    }
    expect(outcomes).toEqual([200, "UND_ERR_SOCKET", 200, 200, "UND_ERR_SOCKET"]);
    expect(state.messages().map((m) => m.text)).toEqual(["a", "b", "c", "d"]);
    server.faults.resetEveryNthAccepted(0);
    expect((await post(url, "e")).status).toBe(200);
    expect(() => server.faults.resetEveryNthAccepted(-1)).toThrow(RangeError);
  });

  it("resets the socket before applying the call: nothing is stored", async () => {
    const url = await start();
    server.faults.failNext({ kind: "reset_before_accept" });
    expect(await networkCode(post(url, "lost"))).toBe("UND_ERR_SOCKET");
    expect(state.messages()).toEqual([]);
  });

  it("refuses connections until restored, then listens again on the same port", async () => {
    const url = await start();
    expect((await post(url, "before")).status).toBe(200);
    const restore = await server.faults.refuseConnections();
    expect(await networkCode(post(url, "refused"))).toBe("ECONNREFUSED");
    await restore();
    expect((await post(url, "after")).status).toBe(200);
    expect(state.messages().map((m) => m.text)).toEqual(["before", "after"]);
  });

  it("drops open connections on demand and keeps listening", async () => {
    const url = await start();
    server.app.get("/stream", () => new Response(new ReadableStream({ start() {} })));
    const res = await fetch(`${url}/stream`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    server.faults.dropConnections();
    expect(
      await reader.read().then(
        () => "ended",
        () => "broken",
      ),
    ).toMatch(/ended|broken/);
    expect((await post(url, "still up")).status).toBe(200);
  });

  it("delays a call, then applies it", async () => {
    const url = await start();
    server.faults.failNext({ kind: "delay", delayMs: 120 });
    const started = Date.now();
    expect((await post(url, "slow")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    expect(state.messages().map((m) => m.text)).toEqual(["slow"]);
  });

  it("lets `skip` matching calls through before the fault applies", async () => {
    const url = await start();
    server.faults.failNext({ kind: "status", status: 400 }, { op: "send", skip: 1 });
    expect((await post(url, "first")).status).toBe(200);
    expect((await post(url, "second")).status).toBe(400);
    expect((await post(url, "third")).status).toBe(200);
    expect(state.messages().map((m) => m.text)).toEqual(["first", "third"]);
  });

  it("matches faults by op: a fault for edits leaves sends alone", async () => {
    const url = await start();
    server.faults.failNext({ kind: "status", status: 500 }, { op: "edit" });
    expect((await post(url, "sent")).status).toBe(200);
    expect(server.faults.pending).toBe(1);
  });
});
