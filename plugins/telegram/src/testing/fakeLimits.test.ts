/** The fake's optional flood limits and "accepted, then reset" sends, seen on the wire. */
import { describe, expect, it, onTestFinished } from "vitest";
import { FAKE_BOT, FakeTelegram, type FakeTelegramOptions } from "./FakeTelegram.ts";

async function open(options: FakeTelegramOptions = {}) {
  const fake = await FakeTelegram.start(options);
  onTestFinished(() => fake.close());
  const send = async (chatId: number, text: string) => {
    const res = await fetch(`${fake.apiRoot}/bot${FAKE_BOT.token}/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: chatId, text }),
    });
    return {
      status: res.status,
      retryAfter: res.headers.get("retry-after"),
      body: (await res.json()) as { parameters?: { retry_after?: number } },
    };
  };
  return { fake, send };
}

describe("fake Bot API limits", () => {
  it("answers a send over the per-chat limit 429 with retry_after and does not apply it", async () => {
    const { fake, send } = await open({ limits: { perChatPerSecond: 1, perBotPerSecond: 30 } });
    const chat = fake.createChat({ type: "private" });
    const other = fake.createChat({ type: "private" });
    expect((await send(chat.id, "one")).status).toBe(200);
    const refused = await send(chat.id, "two");
    expect(refused).toEqual({
      status: 429,
      retryAfter: "1",
      body: {
        ok: false,
        error_code: 429,
        description: "Too Many Requests: retry after 1",
        parameters: { retry_after: 1 },
      },
    });
    expect((await send(other.id, "elsewhere")).status).toBe(200);
    expect(fake.messages(chat.id).map((m) => m.text)).toEqual(["one"]);
    expect(fake.limiter?.rateLimited).toBe(1);
  });

  it("counts a group's sends per minute and the bot's across chats", async () => {
    const { fake, send } = await open({ limits: { perBotPerSecond: 3, perGroupPerMinute: 2 } });
    const group = fake.createChat({ type: "group" });
    expect((await send(group.id, "a")).status).toBe(200);
    expect((await send(group.id, "b")).status).toBe(200);
    const refused = await send(group.id, "c");
    expect(refused.status).toBe(429);
    expect(refused.body.parameters?.retry_after).toBeGreaterThanOrEqual(59);
    const dm = fake.createChat({ type: "private" });
    expect((await send(dm.id, "d")).status).toBe(200);
    expect((await send(dm.id, "e")).status).toBe(429); // the bot's 3/s: a, b, d
  });

  it("resets every n-th accepted send after applying it; refused sends do not count", async () => {
    const { fake, send } = await open({ limits: { perChatPerSecond: 1 } });
    fake.resetEveryNthAcceptedSend(2);
    const a = fake.createChat({ type: "private" });
    const b = fake.createChat({ type: "private" });
    expect((await send(a.id, "1")).status).toBe(200);
    expect((await send(a.id, "refused")).status).toBe(429);
    await expect(send(b.id, "2")).rejects.toThrow(); // applied, then the socket is destroyed
    expect(fake.messages(b.id).map((m) => m.text)).toEqual(["2"]);
    expect(() => fake.resetEveryNthAcceptedSend(-1)).toThrow(RangeError);
  });
});
