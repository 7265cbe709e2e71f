/**
 * The traffic-check hook of FakePlatformServer: a server created with a platform name hands the
 * check registered for that name every exchange — faults included — and keeps the violations
 * until they are taken; scripted answers and `/_fake/` plumbing are marked or skipped.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FakePlatformServer } from "./FakePlatformServer.ts";
import {
  type FakeExchange,
  setFakeTrafficCheck,
  takeFakeTrafficViolations,
} from "./fakeTraffic.ts";

const seen: FakeExchange[] = [];
let server: FakePlatformServer | undefined;

afterEach(async () => {
  setFakeTrafficCheck("hooked", undefined);
  seen.length = 0;
  takeFakeTrafficViolations();
  await server?.close();
});

async function start(platform?: string): Promise<string> {
  server = new FakePlatformServer(platform ? { platform } : {});
  server.route("POST", "/send", "send", async (c) => c.json({ id: 1 }));
  server.route("POST", "/_fake/edit/send", "edit", async (c) => c.json({ id: 2 }));
  setFakeTrafficCheck("hooked", (exchange) => {
    seen.push(exchange);
    return exchange.status === 200
      ? []
      : [
          {
            platform: "hooked",
            operation: "send",
            side: "response",
            field: "",
            message: "x",
            call: "",
          },
        ];
  });
  return server.listen();
}

const post = (url: string, path = "/send") =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"text":"hi"}',
  });

describe("fake traffic checks", () => {
  it("hands the check each request and answer as bytes, and keeps its violations", async () => {
    const url = await start("hooked");
    await post(url);
    server?.faults.failNext({ kind: "status", status: 503 }, { op: "send" });
    await post(url);
    expect(seen.map((e) => [e.method, e.path, e.requestBody, e.status, e.scriptedAnswer])).toEqual([
      ["POST", "/send", '{"text":"hi"}', 200, false],
      ["POST", "/send", '{"text":"hi"}', 503, false],
    ]);
    expect(JSON.parse(seen[0]?.responseBody ?? "")).toEqual({ id: 1 });
    expect(takeFakeTrafficViolations()).toHaveLength(1);
    expect(takeFakeTrafficViolations()).toEqual([]);
  });

  it("marks a fault's own body as scripted, and skips the fake's /_fake/ plumbing", async () => {
    const url = await start("hooked");
    server?.faults.failNext({ kind: "status", status: 200, body: { bogus: true } }, { op: "send" });
    await post(url);
    await post(url, "/_fake/edit/send");
    expect(seen.map((e) => [e.path, e.scriptedAnswer])).toEqual([["/send", true]]);
  });

  it("checks nothing without a platform name", async () => {
    const url = await start();
    await post(url);
    expect(seen).toEqual([]);
  });
});
