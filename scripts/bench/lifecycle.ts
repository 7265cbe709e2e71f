/**
 * The raw store lifecycle the benches compare against: enqueue → lease → sending → committing
 * (receipt) → sent, `batch` intents per store call (1 = one transaction per intent-step).
 */
import { randomUUID } from "node:crypto";
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

/**
 * The writes of `runtime.send`'s folded first attempt ([H19], `delivery/fold.ts`), `batch`
 * messages per store call: the enqueue with its claim and `pending → sending` issued together
 * (one transaction under group commit), then `sending → committing` with the receipt and
 * `committing → sent` in one `transitionIntents` call (one transaction) — the same two commits
 * and the same rows a send writes, without the runtime (render, rate limits, the call) around
 * them. @returns intents per second.
 */
export async function sendLifecycle(
  store: MessageStateStore,
  n: number,
  batch: number,
  chats = 100,
): Promise<number> {
  // One message per chat per batch, as a backlog of many chats: nothing unsent is ahead of it
  // in its ordering key when it is claimed (else the claim is refused, as in `runtime.send`).
  const inputs = Array.from({ length: n }, (_, i) => ({
    ...newIntent(
      outboundMessage(`m${i}`, { target: { id: `chat-${i % Math.max(chats, batch)}` } }),
    ),
    id: randomUUID(),
  }));
  const owner = "bench";
  const t0 = performance.now();
  for (let i = 0; i < n; i += batch) {
    const slice = inputs.slice(i, i + batch);
    const now = Date.now();
    const enqueued = store.enqueueIntents(
      slice.map((x) => ({ ...x, claim: { owner, now, leaseMs: 60_000 } })),
    );
    const sending = store.transitionIntents(
      slice.map((x) => ({
        id: x.id,
        owner,
        from: "pending" as const,
        to: "sending" as const,
        patch: { attempt: 1, nextAttemptAt: null },
      })),
    );
    await Promise.all([enqueued, sending]);
    await store.transitionIntents(
      slice.flatMap((x, k) => [
        {
          id: x.id,
          owner,
          from: "sending" as const,
          to: "committing" as const,
          patch: { receipt: textReceipt([`p${i + k}`]), partialReceipt: null, failure: null },
        },
        { id: x.id, owner, from: "committing" as const, to: "sent" as const },
      ]),
    );
  }
  const perSec = (n / (performance.now() - t0)) * 1000;
  const sent = (await store.countIntents()).sent;
  if (sent !== n) throw new Error(`send lifecycle: expected ${n} sent, got ${sent}`);
  return perSec;
}
