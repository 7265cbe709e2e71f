import { afterEach, describe, expect, it } from "vitest";
import { QaClient } from "../../client.ts";
import { QaApiError } from "../../errors.ts";
import { DEFAULT_QA_BOT, QaPlatform, QaPortInUseError } from "./QaPlatform.ts";

let platform: QaPlatform;
afterEach(() => platform.close());

async function start(options: Parameters<typeof QaPlatform.start>[0] = {}) {
  platform = await QaPlatform.start(options);
  platform.createChat({ id: "room", type: "group" });
  return new QaClient({ baseUrl: platform.url, token: DEFAULT_QA_BOT.token });
}

async function apiError(p: Promise<unknown>): Promise<QaApiError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof QaApiError))
    throw new Error(`expected a QaApiError, got ${String(error)}`);
  return error;
}

describe("QA platform bot API", () => {
  it("refuses a call without a known bot token with 401", async () => {
    await start();
    const stranger = new QaClient({ baseUrl: platform.url, token: "nobody:wrong" });
    const error = await apiError(stranger.postMessage("room", { text: "hi" }));
    expect([error.status, error.errorCode]).toEqual([401, "unauthorized"]);
    expect(platform.state.messages()).toEqual([]);
  });

  it("answers 404 for an unknown chat and 400 for a text over the limit", async () => {
    const client = await start({ maxTextLength: 10 });
    expect((await apiError(client.postMessage("nowhere", { text: "hi" }))).errorCode).toBe(
      "chat_not_found",
    );
    expect((await apiError(client.postMessage("room", { text: "x".repeat(11) }))).errorCode).toBe(
      "text_too_long",
    );
  });

  it("returns the first message for a known client key while idempotency is on, posts again when off", async () => {
    const client = await start();
    const first = await client.postMessage("room", { text: "once", client_key: "k#0" });
    const again = await client.postMessage("room", { text: "once", client_key: "k#0" });
    expect(again).toEqual({ message: first.message, duplicate: true });
    await fetch(`${platform.url}/control/idempotency`, {
      method: "POST",
      body: JSON.stringify({ enabled: false }),
    });
    await client.postMessage("room", { text: "once", client_key: "k#0" });
    expect(await client.findMessages("room", { client_key: "k#0" })).toHaveLength(2);
  });

  it("lets bots edit and delete only their own messages; identical text is not a change", async () => {
    const client = await start();
    const person = platform.post({ chat: "room", text: "mine" });
    expect((await apiError(client.editMessage("room", person.id, { text: "hacked" }))).status).toBe(
      403,
    );
    const { message } = await client.postMessage("room", { text: "draft" });
    expect((await client.editMessage("room", message.id, { text: "draft" })).modified).toBe(false);
    expect((await client.editMessage("room", message.id, { text: "final" })).modified).toBe(true);
    await client.deleteMessage("room", message.id);
    expect((await apiError(client.deleteMessage("room", message.id))).errorCode).toBe(
      "message_not_found",
    );
    expect(platform.state.messages({ chat: "room" }).map((m) => m.text)).toEqual(["mine"]);
  });

  it("posts into threads that exist and refuses unknown ones", async () => {
    const client = await start();
    const root = platform.post({ chat: "room", text: "question" });
    const { message } = await client.postMessage("room", { text: "answer", thread_id: root.id });
    expect(message.thread_id).toBe(root.id);
    expect(
      (await apiError(client.postMessage("room", { text: "x", thread_id: "999" }))).errorCode,
    ).toBe("thread_not_found");
    expect(platform.state.messages({ chat: "room", thread: root.id }).map((m) => m.text)).toEqual([
      "answer",
    ]);
  });

  it("streams events from `since` and then live, and a redelivery carries the same message id", async () => {
    const client = await start();
    platform.post({ chat: "room", text: "old" });
    const seen = platform.post({ chat: "room", text: "seen" });
    const abort = new AbortController();
    const events: Array<{ seq: number; text: string; redelivery?: number }> = [];
    const reading = (async () => {
      for await (const e of client.events(1, abort.signal)) {
        events.push({
          seq: e.seq,
          text: e.message.text,
          ...(e.redelivery ? { redelivery: e.redelivery } : {}),
        });
        if (events.length === 3) abort.abort();
      }
    })();
    platform.post({ chat: "room", text: "live" });
    platform.redeliver(seen.id);
    await reading;
    expect(events).toEqual([
      { seq: 2, text: "seen" },
      { seq: 3, text: "live" },
      { seq: 4, text: "seen", redelivery: 1 },
    ]);
  });

  it("takes faults over the control API (for platforms in another process)", async () => {
    const client = await start();
    const res = await fetch(`${platform.url}/control/faults`, {
      method: "POST",
      body: JSON.stringify({ fault: { kind: "status", status: 503 }, op: "send" }),
    });
    expect(res.status).toBe(200);
    expect((await apiError(client.postMessage("room", { text: "x" }))).status).toBe(503);
    const bad = await fetch(`${platform.url}/control/faults`, {
      method: "POST",
      body: JSON.stringify({ fault: { kind: "explode" } }),
    });
    expect(bad.status).toBe(400);
  });
});

describe("QA platform web side", () => {
  it("serves the chat page and turns a person's message into a bot event", async () => {
    await start();
    const page = await fetch(`${platform.url}/`);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain('id="composer"');
    const posted = await fetch(`${platform.url}/ui/chats/web/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "hello bot", user_id: "ann" }),
    });
    expect(posted.status).toBe(200);
    const [event] = platform.eventsAfter(0);
    expect(event).toMatchObject({
      type: "message.created",
      message: {
        chat_id: "web",
        chat_type: "direct",
        text: "hello bot",
        author: { id: "ann", is_bot: false },
      },
    });
  });
});

describe("QA platform start", () => {
  it("a taken port names the option that changes it ([H28] C51), not a raw EADDRINUSE", async () => {
    const first = await QaPlatform.start({ port: 0 });
    const port = Number(new URL(first.url).port);
    try {
      const error = await QaPlatform.start({ port }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(QaPortInUseError);
      expect((error as QaPortInUseError).code).toBe("EADDRINUSE");
      expect((error as Error).message).toBe(
        `port ${port} on 127.0.0.1 is in use (another QA platform or herald demo?): stop it, or pass another port to QaPlatform.start({ port }) (0 = any free port)`,
      );
    } finally {
      await first.close();
    }
  });
});
