/**
 * The raw store lifecycle the benches compare against: enqueue → lease → sending → committing
 * (receipt) → sent, `batch` intents per store call (1 = one transaction per intent-step).
 */
import type { MessageStateStore } from "../../packages/core/src/index.ts";
import { newIntent, outboundMessage, textReceipt } from "../../packages/core/src/testing/index.ts";

/** Runs `n` intents through the lifecycle. @returns intents per second. */
export async function storeLifecycle(
  store: MessageStateStore,
  n: number,
  batch: number,
  chats = 1000,
): Promise<number> {
  const inputs = Array.from({ length: n }, (_, i) =>
    newIntent(outboundMessage(`m${i}`, { target: { id: `chat-${i % chats}` } })),
  );
  const owner = "bench";
  const t0 = performance.now();
  for (let i = 0; i < n; i += batch) {
    await store.enqueueIntents(inputs.slice(i, i + batch));
    const leased = await store.leaseDueIntents({
      owner,
      now: Date.now(),
      leaseMs: 60_000,
      limit: batch,
    });
    const ids = leased.map((l) => l.id);
    await store.transitionIntents(
      ids.map((id) => ({ id, owner, from: "pending" as const, to: "sending" as const })),
    );
    await store.transitionIntents(
      ids.map((id, k) => ({
        id,
        owner,
        from: "sending" as const,
        to: "committing" as const,
        patch: { receipt: textReceipt([`p${i + k}`]) },
      })),
    );
    await store.transitionIntents(
      ids.map((id) => ({ id, owner, from: "committing" as const, to: "sent" as const })),
    );
  }
  const perSec = (n / (performance.now() - t0)) * 1000;
  const sent = (await store.countIntents()).sent;
  if (sent !== n) throw new Error(`store lifecycle: expected ${n} sent, got ${sent}`);
  return perSec;
}
