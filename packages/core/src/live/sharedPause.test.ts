/**
 * A 429 pauses the chat for durable sends and live previews alike ([H14] item 6; DESIGN §4,
 * §8 "Rate-limit routes"): a send answered 429 holds back the chat's previews for the
 * retry-after, and a preview answered 429 holds back the chat's sends — also a call whose
 * tokens were taken before the 429 came back (it waited for a call slot or a store write).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { FakeAdapterOptions } from "../testing/fakeAdapter.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";
import type { ManualTime } from "./testing/manualTime.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const RETRY_AFTER_S = 2;
/** Manual ms between the platform's answer and the client seeing it (the slot stays taken). */
const LATENCY_MS = 100;

const messageOf = (harness: LiveHarness, id: string): ChannelMessage => ({
  id,
  channel: "qa",
  accountId: "bot-1",
  direction: "outbound",
  target: harness.target.target,
  body: { markdown: `durable ${id}` },
});

/** Answers reach the adapter `LATENCY_MS` after the platform handled the call. */
function slowAnswers(adapter: ChannelMessageAdapter, time: ManualTime): ChannelMessageAdapter {
  const late =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const settled = await fn(...a).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      await new Promise<void>((r) => time.timers.setTimeout(r, LATENCY_MS));
      if (settled.ok) return settled.value;
      throw settled.error;
    };
  const send = { ...adapter.send, send: late(adapter.send.send) };
  if (adapter.send.edit) send.edit = late(adapter.send.edit);
  return { ...adapter, send };
}

/** Message calls that reached the platform inside the pause after the first 429. */
function callsInsidePause(harness: LiveHarness) {
  const calls = harness.platform.calls.filter((c) => c.op === "send" || c.op === "edit");
  const hit = calls.find((c) => c.outcome.includes("429"));
  expect(hit).toBeDefined();
  const from = hit?.at ?? 0;
  const until = from + LATENCY_MS + RETRY_AFTER_S * 1_000;
  return calls.filter((c) => c !== hit && c.at >= from && c.at < until);
}

async function untilCall(harness: LiveHarness, outcome: string): Promise<void> {
  for (let i = 0; i < 50 && !harness.platform.calls.some((c) => c.outcome.includes(outcome)); i++) {
    await harness.time.advance(5);
  }
  expect(harness.platform.calls.some((c) => c.outcome.includes(outcome))).toBe(true);
}

const variants: Array<[string, Omit<FakeAdapterOptions, "transport">]> = [
  ["chat scope (QA channel)", { rateLimitScope: "chat" }],
  ["route scope, adapter-chosen HTTP routes", { rateLimitScope: "route", routes: true }],
  ["route scope, default routes", { rateLimitScope: "route" }],
];

describe.each(variants)("a 429 pauses sends and previews of the chat: %s", (_, adapter) => {
  const harnessOf = () =>
    liveHarness({
      adapter,
      delivery: { concurrency: 1, maxInMemoryWaitMs: 0 },
      wrap: (a, _p, t) => slowAnswers(a, t),
    });

  it("a send answered 429: no preview of that chat goes out before the retry-after", async () => {
    h = await harnessOf();
    const harness = h;
    harness.platform.failNext({ type: "status", status: 429, retryAfterS: RETRY_AFTER_S }, 1);
    const sent = harness.runtime.send(messageOf(harness, "d-1"));
    sent.catch(() => {});
    await untilCall(harness, "429");
    // The send's answer is still on its way: the preview takes its tokens, then waits for the slot.
    const live = await harness.runtime.live(harness.target);
    live.update("preview");
    await harness.time.advance(1_000);
    expect(callsInsidePause(harness)).toEqual([]);
    await harness.drive(sent, 100, 10_000);
    await harness.drive(live.finalize("final"), 100, 10_000);
    expect([...harness.visible()].sort()).toEqual(["durable d-1", "final"]);
    expect(callsInsidePause(harness)).toEqual([]);
  });

  it("a preview send answered 429: no send to that chat goes out before the retry-after", async () => {
    h = await harnessOf();
    const harness = h;
    harness.platform.failNext({ type: "status", status: 429, retryAfterS: RETRY_AFTER_S }, 1);
    const live = await harness.runtime.live(harness.target);
    live.update("preview");
    await untilCall(harness, "429");
    const sent = harness.runtime.send(messageOf(harness, "d-2"));
    sent.catch(() => {});
    await harness.time.advance(1_000);
    expect(callsInsidePause(harness)).toEqual([]);
    await harness.drive(sent, 100, 10_000);
    await harness.drive(live.finalize("final"), 100, 10_000);
    expect([...harness.visible()].sort()).toEqual(["durable d-2", "final"]);
    expect(callsInsidePause(harness)).toEqual([]);
  });

  it.skipIf(adapter.rateLimitScope === "route")(
    "a preview edit answered 429 (chat scope): no send to that chat goes out before the retry-after",
    async () => {
      h = await harnessOf();
      const harness = h;
      const live = await harness.runtime.live(harness.target);
      live.update("preview");
      await harness.time.advance(1_100);
      const edit = { type: "status", status: 429, retryAfterS: RETRY_AFTER_S } as const;
      harness.platform.failNext(edit, 1, "edit");
      live.update("preview 2");
      await untilCall(harness, "429");
      const sent = harness.runtime.send(messageOf(harness, "d-3"));
      sent.catch(() => {});
      await harness.time.advance(1_000);
      expect(callsInsidePause(harness)).toEqual([]);
      await harness.drive(sent, 100, 10_000);
      expect(callsInsidePause(harness)).toEqual([]);
    },
  );
});
