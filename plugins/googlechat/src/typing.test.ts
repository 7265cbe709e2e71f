/**
 * CASES C36: the placeholder form of typing on Google Chat — a placeholder P in thread T, then
 * (a) the final is sent, (b) the turn ends silently or throws, (c) the edit of P answers 404
 * while the final is written, (d) a three-chunk final — against the fake through the real client.
 */
import type { ChannelMessage } from "@herald/plugin-sdk/channel-message";
import { openTestRun } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { accessTokenCredentials } from "./auth.ts";
import { createGoogleChatAdapter, GOOGLE_CHAT_CHANNEL_ID } from "./index.ts";
import { ALICE, SECOND_ACCESS_TOKEN, SECOND_APP } from "./testing/FakeGoogleChat.ts";
import { type GoogleChatRun, openGoogleChatRun } from "./testing/fixture.ts";
import { testConfig, visibleOf } from "./testing/harness.ts";
import { DEFAULT_PLACEHOLDER_TEXT, startTypingPlaceholder } from "./typing.ts";

let open: GoogleChatRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** A person's message inside a thread T of a fresh space, as the bot receives it. */
async function inThread(maxTextLength?: number) {
  open = await openGoogleChatRun({
    ...(maxTextLength ? { config: { maxTextLength } } : {}),
  });
  const t = open;
  const space = t.fake.createSpace().name;
  const thread = t.fake.store.newThread(space);
  t.fake.userPost({ space, thread, text: "root" });
  const { message } = t.fake.userPost({ space, thread, text: "a question in the thread" });
  const inbound = (await t.adapter.receive?.normalize(t.fake.messageEvent(message), {
    channel: GOOGLE_CHAT_CHANNEL_ID,
    accountId: "main",
    receivedAt: Date.now(),
  })) as ChannelMessage;
  const bot = () =>
    t.fake.store
      .messages({ space })
      .filter((m) => m.sender.type === "BOT")
      .map((m) => ({ ...visibleOf(t.fake, m), thread: m.thread }));
  return { t, space, thread, inbound, bot };
}

describe("C36: typing placeholder lifecycle", () => {
  it("C36 (a): the final replaces the placeholder: exactly one visible final, in T", async () => {
    const { t, thread, inbound, bot } = await inThread();
    const typing = await startTypingPlaceholder(t.run.runtime, inbound);
    await typing.idle();
    expect(bot().map((m) => m.text)).toEqual([DEFAULT_PLACEHOLDER_TEXT]);
    await typing.finalize("the answer");
    expect(bot().map((m) => [m.text, m.thread])).toEqual([["the answer", thread]]);
  });

  it("C36 (b): a turn that ends silently, or throws, leaves no placeholder behind", async () => {
    const { t, inbound, bot } = await inThread();
    await t.run.runtime.turn(inbound, async () => {
      await startTypingPlaceholder(t.run.runtime, inbound);
      await expect.poll(() => bot().length).toBe(1);
    });
    expect(bot()).toEqual([]);
    await t.run.runtime
      .turn({ ...inbound, id: `${inbound.id}-2` }, async () => {
        await startTypingPlaceholder(t.run.runtime, { ...inbound, id: `${inbound.id}-2` });
        await expect.poll(() => bot().length).toBe(1);
        throw new Error("the handler failed");
      })
      .catch(() => {});
    await expect.poll(() => bot()).toEqual([]);
  });

  it("C36 (c): the placeholder is gone when the final edits it (404): chunk 1 is created fresh in T, nothing lost", async () => {
    const { t, thread, inbound, bot } = await inThread();
    const typing = await startTypingPlaceholder(t.run.runtime, inbound);
    await typing.idle();
    expect(bot()).toHaveLength(1);
    // Someone deletes P: the final's edit of it answers 404 NOT_FOUND.
    const [p] = t.fake.store.messages().filter((m) => m.sender.type === "BOT");
    if (p) t.fake.store.state.delete(p.id);
    await typing.finalize("the answer after all");
    expect(t.fake.server.calls.some((c) => c.op === "edit" && c.outcome === "ok 404")).toBe(true);
    expect(bot().map((m) => [m.text, m.thread])).toEqual([["the answer after all", thread]]);
  });

  it("C36 (d): a three-chunk final: chunk 1 in the placeholder, chunks 2–3 after it, all in T", async () => {
    const { t, thread, inbound, bot } = await inThread(24);
    const typing = await startTypingPlaceholder(t.run.runtime, inbound);
    await typing.idle();
    const [placeholder] = bot();
    const final = "first chunk text here second chunk goes here third chunk at end";
    const receipt = await typing.finalize(final);
    const shown = bot();
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(shown.map((m) => m.thread)).toEqual(shown.map(() => thread));
    expect(shown.map((m) => m.text).join(" ")).toBe(final);
    expect(shown[0]?.id).toBe(placeholder?.id);
    expect(receipt.platformMessageIds).toEqual(shown.map((m) => m.id));
  });

  it("two accounts (two apps) answering the same message each get their own placeholder and final", async () => {
    open = await openGoogleChatRun();
    const t = open;
    const second = createGoogleChatAdapter(
      testConfig({ ...t.connection, accessToken: SECOND_ACCESS_TOKEN, appUser: SECOND_APP.name }),
      accessTokenCredentials(SECOND_ACCESS_TOKEN),
    );
    const run = await openTestRun({
      adapters: [
        { accountId: "main", adapter: t.adapter },
        { accountId: "second", adapter: second },
      ],
    });
    t.run.onClose(() => run.close());
    const space = t.fake.createSpace().name;
    const { message } = t.fake.userPost({ space, text: "both of you?", sender: ALICE });
    for (const accountId of ["main", "second"]) {
      const inbound = (await t.adapter.receive?.normalize(t.fake.messageEvent(message), {
        channel: GOOGLE_CHAT_CHANNEL_ID,
        accountId,
        receivedAt: Date.now(),
      })) as ChannelMessage;
      const typing = await startTypingPlaceholder(run.runtime, inbound);
      await typing.idle();
      await typing.finalize(`answer of ${accountId}`);
    }
    const bots = t.fake.store.messages({ space }).filter((m) => m.sender.type === "BOT");
    expect(bots.map((m) => [m.sender.name, t.fake.store.textOf(m)])).toEqual([
      [t.connection.appUser, "answer of main"],
      [SECOND_APP.name, "answer of second"],
    ]);
  });
});
