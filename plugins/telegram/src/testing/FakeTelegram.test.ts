/** The fake Bot API answers like Telegram where herald depends on it (checked with grammY). */
import { describe, expect, it, onTestFinished } from "vitest";
import { createTelegramApi } from "../client.ts";
import { TelegramApiError } from "../errors.ts";
import { FAKE_BOT, FakeTelegram, type FakeTelegramOptions } from "./FakeTelegram.ts";

async function open(options: FakeTelegramOptions = {}) {
  const fake = await FakeTelegram.start(options);
  onTestFinished(() => fake.close());
  return { fake, api: createTelegramApi({ token: FAKE_BOT.token, apiRoot: fake.apiRoot }) };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => (e instanceof TelegramApiError ? `${e.errorCode} ${e.description}` : String(e)),
  );

describe("fake Bot API", () => {
  it("rejects the General topic id and unknown topics with 'message thread not found'", async () => {
    const { fake, api } = await open();
    const chat = fake.createChat({ type: "supergroup", forum: true });
    const topic = fake.createTopic(chat.id, "Help");
    await api.sendMessage(chat.id, "in topic", { message_thread_id: topic });
    expect(await failure(api.sendMessage(chat.id, "x", { message_thread_id: 1 }))).toBe(
      "400 Bad Request: message thread not found",
    );
    expect(fake.messages(chat.id, { thread: topic }).map((m) => m.text)).toEqual(["in topic"]);
  });

  it("answers 'message is not modified' for identical content and refuses edits of others' messages", async () => {
    const { fake, api } = await open();
    const chat = fake.createChat({ type: "private" });
    const sent = await api.sendMessage(chat.id, "hi");
    expect(await failure(api.editMessageText(chat.id, sent.message_id, "hi"))).toMatch(
      /^400 Bad Request: message is not modified/,
    );
    const theirs = fake.userPost({ chat: chat.id, text: "mine" }).message.message_id as number;
    expect(await failure(api.editMessageText(chat.id, theirs, "changed"))).toBe(
      "400 Bad Request: message can't be edited",
    );
    expect(await failure(api.editMessageText(chat.id, 99_999, "x"))).toBe(
      "400 Bad Request: message to edit not found",
    );
  });

  it("rejects unescaped MarkdownV2 the way Telegram does", async () => {
    const { fake, api } = await open();
    const chat = fake.createChat({ type: "private" });
    expect(
      await failure(api.sendMessage(chat.id, "Sure! Step 1 - done.", { parse_mode: "MarkdownV2" })),
    ).toMatch(/^400 Bad Request: can't parse entities: Character '!' is reserved/);
  });

  it("counts text limits in UTF-16 units and rejects a bad token with 401", async () => {
    const { fake, api } = await open();
    const chat = fake.createChat({ type: "private" });
    expect(await failure(api.sendMessage(chat.id, "😀".repeat(2049)))).toBe(
      "400 Bad Request: message is too long",
    );
    await api.sendMessage(chat.id, "😀".repeat(2048));
    const stranger = createTelegramApi({ token: "1:AAnotAToken", apiRoot: fake.apiRoot });
    expect(await failure(stranger.getMe())).toBe("401 Unauthorized");
  });

  it("confirms updates below the offset and long-polls for new ones", async () => {
    const { fake, api } = await open();
    const chat = fake.createChat({ type: "private" });
    const first = fake.userPost({ chat: chat.id, text: "one" }).update.update_id;
    expect((await api.getUpdates({})).map((u) => u.update_id)).toEqual([first]);
    expect((await api.getUpdates({ offset: first })).map((u) => u.update_id)).toEqual([first]);
    const waiting = api.getUpdates({ offset: first + 1, timeout: 5 });
    setTimeout(() => fake.userPost({ chat: chat.id, text: "two" }), 50);
    expect((await waiting).map((u) => u.update_id)).toEqual([first + 1]);
    expect(fake.queue().confirmedBelow).toBe(first + 1);
  });

  it("follows the reference server's offsets: up to next id + 10 confirms everything below (later arrivals too), beyond that nothing; -N keeps the last N", async () => {
    const { fake, api } = await open();
    const chat = fake.createChat({ type: "private" });
    const ids = [1, 2, 3].map(
      (n) => fake.userPost({ chat: chat.id, text: `m${n}` }).update.update_id,
    );
    const next = (ids.at(-1) as number) + 1;
    // "In the future": answered from the oldest update, nothing confirmed.
    expect((await api.getUpdates({ offset: next + 11 })).map((u) => u.update_id)).toEqual(ids);
    expect(fake.queue().pending).toHaveLength(3);
    // -N: only the last N are kept.
    expect((await api.getUpdates({ offset: -2 })).map((u) => u.update_id)).toEqual(ids.slice(1));
    // Next id + 10: everything below is deleted, and so is an update that arrives under it.
    expect(await api.getUpdates({ offset: next + 10 })).toEqual([]);
    fake.userPost({ chat: chat.id, text: "arrives under the offset" });
    expect(await api.getUpdates({ offset: next + 10 })).toEqual([]);
    expect(fake.queue().pending).toHaveLength(0);
  });

  it("answerPollsAtOnce: an empty long poll is answered [] at once, as an emulator or proxy may (C42)", async () => {
    const { fake, api } = await open({ answerPollsAtOnce: true });
    const answered = await Promise.race([
      api.getUpdates({ timeout: 30 }),
      new Promise<"held">((resolve) => setTimeout(() => resolve("held"), 5_000).unref()),
    ]);
    expect(answered).toEqual([]);
    expect(fake.queue().answerAtOnce).toBe(true);
  });
});

it("starts on a given port, so a separately started config can point apiRoot at it", async () => {
  const probe = await FakeTelegram.start();
  const port = Number(new URL(probe.apiRoot).port);
  await probe.close();
  const fake = await FakeTelegram.start({ port });
  try {
    expect(fake.apiRoot).toBe(`http://127.0.0.1:${port}`);
    const me = await fetch(`${fake.apiRoot}/bot${FAKE_BOT.token}/getMe`, { method: "POST" }).then(
      (r) => r.json(),
    );
    expect(me).toMatchObject({ ok: true, result: { id: FAKE_BOT.id } });
  } finally {
    await fake.close();
  }
});
