/**
 * The final is durable before anything waits ([H14] item 6; DESIGN §3 "Waiting is durable"): a
 * rate-limited first preview or a preview edit still in flight never holds the only copy of the
 * final in memory — its intent is written first, then the session waits for the call.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const findFinalStored = async (key: string) => {
  const a = await h?.store.getIntentByIdempotencyKey(key);
  const b = await h?.store.getIntentByIdempotencyKey(`${key}:fresh`);
  return a ?? b;
};

describe("final durable before any wait", () => {
  it("first preview SEND answered 429 retry-after 34 s: the final is stored at once", async () => {
    h = await liveHarness();
    h.platform.failNext({ type: "status", status: 429, retryAfterS: 34 }, 1, "send");
    const live = await h.runtime.live(h.target, {
      idempotencyKey: "reply:send429",
      waitMs: 60_000,
    });
    live.update("Hello");
    await live.idle();
    const finalized = live.finalize("Hello world");
    finalized.catch(() => {});
    await h.time.settle();
    expect(await findFinalStored("reply:send429")).toMatchObject({
      message: { body: { markdown: "Hello world" } },
    });
    await h.drive(finalized, 500, 60_000);
    expect(h.visible()).toEqual(["Hello world"]);
  });

  it("a preview edit still in flight (slow platform): the final is stored before it returns", async () => {
    let editsStarted = 0;
    h = await liveHarness({
      wrap: (adapter, _p, time) => ({
        ...adapter,
        send: {
          ...adapter.send,
          async edit(ctx, target, unit) {
            editsStarted += 1;
            // A slow edit: 20 s of (manual) time before the platform answers.
            await new Promise<void>((r) => time.timers.setTimeout(r, 20_000));
            return adapter.send.edit?.(ctx, target, unit) as ReturnType<
              NonNullable<typeof adapter.send.edit>
            >;
          },
        },
      }),
    });
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:slow", waitMs: 60_000 });
    live.update("Hello");
    await live.idle();
    await h.time.advance(1_100);
    live.update("Hello wor");
    await h.time.settle();
    const finalized = live.finalize("Hello world");
    finalized.catch(() => {});
    await h.time.advance(100);
    await h.time.settle();
    expect(editsStarted).toBe(1); // the preview edit is in flight
    expect(await findFinalStored("reply:slow")).toMatchObject({
      message: { body: { markdown: "Hello world" } },
    });
    await h.drive(finalized, 500, 60_000);
  });
});
