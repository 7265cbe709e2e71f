/**
 * The live fault matrix: an edit (or the preview delete after a fresh final) fails with each
 * kind of fault at each step of a stream, finalized in place or fresh. Whatever happens, the
 * chat ends with exactly the final visible, once, and no preview.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Fault, PlatformCall } from "../testing/fakePlatform.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

const INTERVAL = 1_020;

type FaultKind = "not_found" | "rate_limit" | "transient" | "maybe_sent" | "maybe_sent_5xx";
const FAULTS: Record<Exclude<FaultKind, "not_found">, Fault> = {
  rate_limit: { type: "status", status: 429, code: "rate_limited", retryAfterS: 1 },
  transient: { type: "refuse" }, // not dispatched
  maybe_sent: { type: "accept-then-drop" }, // applied, answer lost
  maybe_sent_5xx: { type: "status", status: 502, code: "bad_gateway" }, // not applied, outcome unknown
};

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

/** Makes the `step`-th edit-or-delete call fail with `kind` (not_found: the platform lost the message). */
function injectAt(harness: LiveHarness, step: number, kind: FaultKind): void {
  const { platform } = harness;
  const call = platform.call.bind(platform);
  let seen = 0;
  platform.call = (c: PlatformCall) => {
    if (c.op === "edit" || c.op === "delete") {
      seen += 1;
      if (seen === step) {
        if (kind === "not_found") {
          const m = platform.messages.find((x) => x.id === c.id);
          if (m) m.deleted = true;
        } else {
          platform.failNext(FAULTS[kind], 1, c.op);
        }
      }
    }
    return call(c);
  };
}

const kinds: FaultKind[] = ["not_found", "rate_limit", "transient", "maybe_sent", "maybe_sent_5xx"];
const cases = (["in_place", "fresh"] as const).flatMap((finalize) =>
  [1, 2, 3].flatMap((step) => kinds.map((kind) => [finalize, step, kind] as const)),
);

describe("live fault matrix", () => {
  it.each(cases)(
    "finalize %s, step %i fails with %s → exactly one final, no preview",
    async (finalize, step, kind) => {
      // Fresh finals: `staleAfterMs: 0` makes every preview stale, so the final is a new message.
      h = await liveHarness({
        adapter: {
          live: {
            editRate: { limit: 1, intervalMs: 1_000 },
            ...(finalize === "fresh" ? { staleAfterMs: 0 } : {}),
          },
        },
      });
      injectAt(h, step, kind);
      const live = await h.runtime.live(h.target, { idempotencyKey: "reply:m" });
      for (const text of ["Hello", "Hello wor", "Hello world"]) {
        live.update(text);
        await h.time.advance(INTERVAL);
        await live.idle();
      }
      await h.time.advance(INTERVAL);
      await h.drive(live.finalize("Hello world!"));

      expect(h.visible()).toEqual(["Hello world!"]);
      expect(await h.store.getIntentByIdempotencyKey("reply:m")).toMatchObject({ status: "sent" });
      expect(await h.store.getIntentByIdempotencyKey("reply:m:live")).toMatchObject({
        status: "cancelled",
        liveState: { phase: "done", outcome: "finalized" },
      });
    },
  );
});
