/**
 * [H14] item 9 at the gateway: every failed reconciliation of an in-doubt live preview is
 * counted in `/metrics` (`herald_reconcile_errors_total`), per channel and account.
 */
import { afterEach, expect, it } from "vitest";
import { benchAccount, benchGateway } from "../testing/fakeChannels.ts";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

it("counts reconcile errors of live previews", async () => {
  // No settle delay: the in-doubt preview is looked up as soon as the stream goes idle.
  const a = benchAccount("chat", "A", { live: {}, requestTimeoutMs: 0 });
  a.adapter.send.reconcileUnknownSend = async () => {
    throw new Error("probe failed: 502");
  };
  const bench = benchGateway([a]);
  close = bench.close;
  await bench.gateway.start();
  a.platform.failNext({ type: "accept-then-drop" }, 1, "send");
  const live = await bench.gateway.runtime.live({
    channel: "chat",
    accountId: "A",
    target: { kind: "direct", id: "dm" },
  });
  live.update("Hello");
  await live.idle();
  const { body } = await bench.gateway.metrics.render();
  expect(body).toContain('herald_reconcile_errors_total{channel="chat",account="A"} 1');
  await live.cancel();
});

it("counts sends held for a receipt conflict (C40), per channel and account", async () => {
  const a = benchAccount("chat", "A");
  const bench = benchGateway([a]);
  close = bench.close;
  await bench.gateway.start();
  const message = (text: string) => ({
    id: `m-${text}`,
    channel: "chat",
    accountId: "A",
    direction: "outbound" as const,
    body: { markdown: text },
    target: { kind: "group" as const, id: "room" },
  });
  await bench.gateway.runtime.send(message("first"));
  // A cache in front of the platform answers the second send with the first one's id.
  a.platform.failNext({ type: "repeat-id" }, 1, "send");
  await bench.gateway.runtime.send(message("second"), { waitMs: 2_000 }).catch(() => undefined);
  const { body } = await bench.gateway.metrics.render();
  expect(body).toContain('herald_receipt_conflicts_total{channel="chat",account="A"} 1');
  expect(body).toContain('herald_queue_depth{status="unknown_after_send"} 1');
});

it("C55 counts replies not sent because they were older than their maxAgeMs, per channel and account", async () => {
  const a = benchAccount("chat", "A");
  const bench = benchGateway([a]);
  close = bench.close;
  await bench.gateway.start();
  // Refused once (never reached the platform): the retry is due at the expiry, and expires.
  a.platform.failNext({ type: "refuse" }, 1, "send");
  const error = await bench.gateway.runtime
    .send(
      {
        id: "m-late",
        channel: "chat",
        accountId: "A",
        direction: "outbound",
        body: { markdown: "late" },
        target: { kind: "group", id: "room" },
      },
      { maxAgeMs: 50, waitMs: 10_000 },
    )
    .catch((e: unknown) => e);
  expect((error as { code?: string }).code).toBe("HERALD_DELIVERY_EXPIRED");
  const { body } = await bench.gateway.metrics.render();
  expect(body).toContain('herald_intents_expired_total{channel="chat",account="A"} 1');
  expect(body).toContain('herald_queue_depth{status="expired"} 1');
  expect(a.platform.visible()).toEqual([]);
});
