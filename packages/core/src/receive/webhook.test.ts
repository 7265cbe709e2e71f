/**
 * CASES C08 (Telegram webhook, slow handler): a minimal `node:http` receiver on 127.0.0.1 that
 * answers the platform when the receive ticket's ack says so.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { deferred } from "./testing/deferred.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";
import type { ReceiveRuntime } from "./types.ts";

const SECRET = "s3cret-token-for-tests";

/** A Telegram webhook receiver: secret-token check, then answer per the ack signal. */
function telegramWebhook(runtime: ReceiveRuntime): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const given = Buffer.from(String(req.headers["x-telegram-bot-api-secret-token"] ?? ""));
      const want = Buffer.from(SECRET);
      if (given.length !== want.length || !timingSafeEqual(given, want)) {
        res.writeHead(401).end();
        return;
      }
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text; // dead-lettered as is
      }
      const signal = await runtime.receive(body, { channel: "telegram", accountId: "main" }).ack;
      if (signal.kind === "retry") {
        res.writeHead(503, {
          "retry-after": String(Math.ceil((signal.retryAfterMs ?? 1_000) / 1_000)),
        });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
}

describe("C08 · Telegram webhook with a slow handler", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });

  async function start(runtime: ReceiveRuntime): Promise<string> {
    server = telegramWebhook(runtime);
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/telegram`;
  }
  const post = (url: string, body: unknown, secret = SECRET) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
      body: JSON.stringify(body),
    });

  it("answers 200 once 7001 is recorded, processes it in the background, and does not process the repeat", async () => {
    const fifteenSeconds = deferred(); // the handler's slow work, released by the test
    const started = deferred();
    const replies: string[] = [];
    let runs = 0;
    const bench = receiveBench(
      [createFakeTelegramAdapter({ ackPolicy: { kind: "immediate", reason: "webhook-timeout" } })],
      {
        handler: async (ctx) => {
          runs += 1;
          started.resolve();
          await fifteenSeconds.promise;
          replies.push(`answer to ${ctx.input.body?.markdown}`);
        },
      },
    );
    const url = await start(bench.runtime);
    const update = teleUpdate(7001, { text: "summarise the thread" });

    // The handler is held until the test releases it: a 200 now was answered without waiting
    // for it (an ordering, not a duration, so it holds on a busy machine).
    const first = await post(url, update);
    expect(first.status).toBe(200);
    await started.promise;
    expect(replies).toEqual([]); // still processing in the background

    // The platform gave up waiting and posts 7001 again.
    const repeat = await post(url, update);
    expect(repeat.status).toBe(200);

    fifteenSeconds.resolve();
    await bench.runtime.drain();
    expect(runs).toBe(1);
    expect(replies).toEqual(["answer to summarise the thread"]);
    expect(
      (await bench.store.getDedupe({ channel: "telegram", accountId: "main", eventId: "1:7001" }))
        ?.status,
    ).toBe("done");
    // A repeat after completion is acknowledged too, and still not processed.
    expect((await post(url, update)).status).toBe(200);
    await bench.runtime.drain();
    expect(runs).toBe(1);
  });

  it("rejects a wrong secret with 401 and leaves no trace in the store", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    const url = await start(bench.runtime);
    expect((await post(url, teleUpdate(7002), "wrong-secret-value-xx")).status).toBe(401);
    expect((await post(url, { garbage: true }, "short")).status).toBe(401);
    await bench.runtime.drain();
    expect(bench.processed).toEqual([]);
    expect(await bench.store.listDeadLetters({})).toEqual([]);
    expect(
      await bench.store.getDedupe({ channel: "telegram", accountId: "main", eventId: "1:7002" }),
    ).toBeUndefined();
  });

  it("answers 200 to a malformed update once it is dead-lettered", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    const url = await start(bench.runtime);
    expect((await post(url, { update_id: 7003, message: { chat: {} } })).status).toBe(200);
    const [letter] = await bench.runtime.deadLetters.list();
    expect(letter?.error.path).toBe("message.message_id");
  });
});
