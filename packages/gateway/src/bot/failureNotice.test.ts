/**
 * [H25] item 4 — gateway-failure notices (CASES C56): a failed turn posts the opt-in notice once
 * per inbound message, durably; a second herald bot sharing the store drops it as a herald echo
 * (the outbound registry is read by platform message, not by account); a notice never triggers
 * a notice. The bench channel has no native metadata, so this is the registry path; channels
 * with metadata are covered per plugin by the contract test `accounts.failure-notice`.
 */
import { FakePlatform } from "@herald/core/testing";
import { afterEach, expect, it } from "vitest";
import { benchAccount, benchGateway } from "../testing/fakeChannels.ts";
import { failureNoticeKey } from "./failureNotice.ts";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const NOTICE = "The assistant failed; please try again.";

/** Bots A and B of one channel in one room of one platform, sharing one store. */
function twoBots(options: Parameters<typeof benchGateway>[1] = {}) {
  const platform = new FakePlatform();
  const a = benchAccount("chat", "A", { platform });
  const b = benchAccount("chat", "B", { platform });
  const bench = benchGateway([a, b], { receive: { allowBots: true }, ...options });
  close = bench.close;
  return { platform, a, b, bench, rt: bench.gateway.runtime };
}

it("C56: bot A's failure notice is posted once, and bot B on the same store drops it as a herald echo", async () => {
  const { platform, bench, rt } = twoBots({ failureNotice: { text: NOTICE } });
  const handled: string[] = [];
  bench.gateway.onMessage(async (turn) => {
    handled.push(`${turn.message.accountId}:${turn.text}`);
    if (turn.message.accountId === "A") throw new Error("model unavailable");
  });
  await bench.gateway.start();

  const hi = { id: "1", chat: "room", from: "alice", text: "hi" };
  const first = rt.receive(hi, { channel: "chat", accountId: "A" });
  expect((await first.done).status).not.toBe("processed");
  // The handler fails again on the redelivery: still one notice (keyed by the inbound message).
  await rt.receive(hi, { channel: "chat", accountId: "A" }).done;
  const intent = await bench.store.getIntentByIdempotencyKey(
    failureNoticeKey({ channel: "chat", accountId: "A", id: "chat:room:1" }),
  );
  expect(intent?.message.origin).toMatchObject({ source: "herald", kind: "gateway_failure" });
  const notices = () => platform.visible().filter((m) => m.text === NOTICE);
  await expect.poll(() => notices().length).toBe(1);
  const [notice] = notices();
  expect(notice?.chat).toBe("room");

  // The platform shows the notice to both bots in the room.
  const seen = { id: "n", chat: "room", from: "bot-A", isBot: true, text: NOTICE, ref: notice?.id };
  const byB = await rt.receive(seen, { channel: "chat", accountId: "B" }).done;
  expect(byB).toMatchObject({ status: "dropped", reason: "herald_echo" });
  const byA = await rt.receive(seen, { channel: "chat", accountId: "A" }).done;
  expect(byA.status).toBe("dropped");
  // No handler saw it, and it triggered no notice of its own (no loop).
  expect(handled).toEqual(["A:hi", "A:hi"]);
  expect(notices()).toHaveLength(1);

  // B's own turns still run, and its untagged bot messages are still prompts (allowBots).
  const plain = { id: "2", chat: "room", from: "bot-other", isBot: true, text: NOTICE };
  expect((await rt.receive(plain, { channel: "chat", accountId: "B" }).done).status).toBe(
    "processed",
  );
  expect(handled).toEqual(["A:hi", "A:hi", `B:${NOTICE}`]);
});

it("C56: no notice unless configured; an account's `false` turns the gateway's off", async () => {
  const { platform, a, b, bench, rt } = twoBots({ failureNotice: { text: NOTICE } });
  void a;
  b.channel.failureNotice = false;
  bench.gateway.onMessage(async () => {
    throw new Error("model unavailable");
  });
  await bench.gateway.start();
  await rt.receive(
    { id: "1", chat: "room", from: "alice", text: "hi" },
    { channel: "chat", accountId: "B" },
  ).done;
  await rt.receive(
    { id: "2", chat: "room", from: "alice", text: "hi" },
    { channel: "chat", accountId: "A" },
  ).done;
  await expect.poll(() => platform.visible().filter((m) => m.text === NOTICE).length).toBe(1);
  expect(platform.visible().map((m) => m.text)).toEqual([NOTICE]);
});

it("C56: a turn running past timeoutMs gets the notice while it goes on; its later failure adds none", async () => {
  const { platform, bench, rt } = twoBots({ failureNotice: { text: NOTICE, timeoutMs: 20 } });
  let release!: () => void;
  const slow = new Promise<void>((resolve) => {
    release = resolve;
  });
  bench.gateway.onMessage(async () => {
    await slow;
    throw new Error("gave up");
  });
  await bench.gateway.start();
  const ticket = rt.receive(
    { id: "1", chat: "room", from: "alice", text: "hi" },
    { channel: "chat", accountId: "A" },
  );
  await expect.poll(() => platform.visible().filter((m) => m.text === NOTICE).length).toBe(1);
  release();
  await ticket.done;
  expect(platform.visible().filter((m) => m.text === NOTICE)).toHaveLength(1);
});
