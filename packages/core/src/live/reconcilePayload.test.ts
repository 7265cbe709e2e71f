/**
 * [H14] item 9 — live cleanup and live recovery reconcile an in-doubt preview with the unit it
 * sent (payload included), like a real probe that looks the text up; every reconcile error is
 * logged and reported (`onReconcileError`), never swallowed.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import { createMessageRuntime } from "../runtime.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import type { FakePlatform } from "../testing/fakePlatform.ts";
import { type LiveHarness, liveHarness, TELEGRAM_LIKE } from "./testing/harness.ts";
import type { LiveReconcileError, LiveTimers } from "./types.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

/** Timers that never fire: the process that owns them is "dead". */
const frozen: LiveTimers = { setTimeout: () => 0, clearTimeout: () => {} };

function withReconcile(
  adapter: ChannelMessageAdapter,
  reconcileUnknownSend: NonNullable<ChannelMessageAdapter["send"]["reconcileUnknownSend"]>,
): ChannelMessageAdapter {
  return { ...adapter, send: { ...adapter.send, reconcileUnknownSend } };
}

/** A reconciler that, like Telegram's probe, finds a message by the text it carried. */
function probeByText(
  adapter: ChannelMessageAdapter,
  platform: FakePlatform,
): ChannelMessageAdapter {
  return {
    ...adapter,
    send: {
      ...adapter.send,
      async reconcileUnknownSend(ctx, units) {
        const parts = [];
        for (const unit of units) {
          const text = (unit.payload as { text: string }).text; // TypeError on a null payload
          const found = platform
            .visible(ctx.message.target.id)
            .find((m) => m.text === text && m.author !== "user");
          if (found)
            parts.push({ platformMessageId: found.id, kind: unit.kind, index: unit.index });
        }
        return parts.length > 0 ? { status: "sent", parts } : { status: "not_sent" };
      },
    },
  };
}

describe("in-doubt previews are reconciled with their payload", () => {
  it("a preview whose send outcome was unknown is found and edited into the final: one message", async () => {
    h = await liveHarness({ wrap: probeByText });
    h.platform.failNext({ type: "accept-then-drop" }, 1, "send");
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:doubt" });
    live.update("Hello");
    await live.idle();
    await h.time.advance(1_020);
    await h.drive(live.finalize("Hello world"));
    expect(h.visible()).toEqual(["Hello world"]);
  });

  it("live recovery reconciles a preview a crashed session left in doubt", async () => {
    h = await liveHarness({ wrap: probeByText });
    const harness = h;
    // The process that dies: its probe could not reach the platform, so the preview stayed in doubt.
    const doomed = createMessageRuntime({
      store: harness.store,
      adapters: [
        withReconcile(
          createFakeAdapter({
            live: TELEGRAM_LIKE,
            transport: inProcessTransport(harness.platform),
          }),
          async () => {
            throw new Error("ECONNRESET");
          },
        ),
      ],
      clock: harness.time.now,
      delivery: { workerId: "doomed", leaseMs: 10_000 },
      live: { timers: frozen, recoveryIntervalMs: 0 },
    });
    harness.platform.failNext({ type: "accept-then-drop" }, 1, "send");
    const live = await doomed.live(harness.target, { idempotencyKey: "reply:crash" });
    live.update("Hello");
    await live.idle();
    expect(harness.visible()).toEqual(["Hello"]); // the preview the dead process had no id for
    await harness.time.advance(11_000); // its lease lapses
    const report = await harness.runtime.recoverLive();
    expect(report.deleted).toBe(1);
    expect(harness.visible()).toEqual([]);
  });

  it("a reconciler that throws is logged and reported, never swallowed", async () => {
    const errors: LiveReconcileError[] = [];
    h = await liveHarness({
      wrap: (adapter) => ({
        ...adapter,
        send: {
          ...adapter.send,
          async reconcileUnknownSend() {
            throw new Error("probe failed: 502");
          },
        },
      }),
      live: { onReconcileError: (e) => errors.push(e) },
    });
    h.platform.failNext({ type: "accept-then-drop" }, 1, "send");
    const live = await h.runtime.live(h.target);
    live.update("Hello");
    await live.idle();
    expect(errors).toHaveLength(0); // no lookup before the settle delay (requestTimeoutMs)
    await h.time.advance(1_020);
    await live.idle();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ channel: "qa", accountId: "bot-1" });
    expect(String((errors[0]?.error as Error | undefined)?.message)).toBe("probe failed: 502");
    await h.time.advance(1_020);
    await h.drive(live.finalize("Hello world"));
    expect(errors.length).toBeGreaterThanOrEqual(2); // finalize tried again and reported again
  });
});
