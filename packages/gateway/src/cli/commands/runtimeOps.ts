/**
 * `herald recover` and `herald send`: operations that need the channels' adapters.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { createMessageRuntime, type MessageReceipt } from "@herald/core";
import { CliUsageError } from "../cliErrors.ts";
import { type CliContext, cliChannels } from "../context.ts";
import { type Out, progress } from "../output.ts";

/** What `herald recover` did: the three recovery passes' counts. */
export type RecoverSummary = {
  sends: { toUnknown: number; committed: number; released: number; skewRepaired: number };
  /** Delivery recovery passes run (each with a 5 s budget). */
  passes: number;
  inbound: { redispatched: number; processed: number; deadLettered: number; held: number };
  live: { finalized: number; deleted: number; kept: number; waiting: number };
};

/**
 * The operator's reading of a recovery: one line per area, in words, and what happens next.
 * `herald recover --json` prints the {@link RecoverSummary} itself instead.
 */
export function formatRecoverSummary(s: RecoverSummary): string {
  const { sends, inbound, live } = s;
  const nothing = (n: Record<string, number>) => Object.values(n).every((v) => v === 0);
  const lines = [
    `herald recover: done (${s.passes} pass(es))`,
    nothing(sends)
      ? "  sends:    nothing left mid-send"
      : `  sends:    ${sends.committed} confirmed sent, ${sends.toUnknown} maybe sent (now unknown_after_send: reconciled, or held for you)` +
        `${sends.released ? `, ${sends.released} released to their queue` : ""}` +
        `${sends.skewRepaired ? `, ${sends.skewRepaired} clock-skew repair(s)` : ""}`,
    nothing(inbound)
      ? "  inbound:  no unfinished message"
      : `  inbound:  ${inbound.redispatched} unfinished message(s) handled again (${inbound.processed} done), ${inbound.deadLettered} moved to dead letters${inbound.held ? `, ${inbound.held} held by a running gateway` : ""}`,
    nothing(live)
      ? "  live:     no open live session"
      : `  live:     ${live.finalized} finalised, ${live.deleted} preview(s) deleted, ${live.kept} preview(s) kept as the message, ${live.waiting} waiting for their final`,
    "  next:     pending and unknown_after_send intents are delivered or reconciled by herald start (see herald queue ls)",
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * Runs recovery passes until complete, showing progress on stderr; prints what was recovered
 * (in words, or with `json` the {@link RecoverSummary} as one JSON line for scripts).
 */
export async function recover(
  ctx: CliContext,
  out: Out = process.stdout,
  options: { json?: boolean } = {},
): Promise<RecoverSummary> {
  const channels = await cliChannels(ctx);
  const runtime = createMessageRuntime({
    store: ctx.store,
    adapters: channels.map((c) => ({ accountId: c.account, adapter: c.adapter })),
    logger: ctx.logger,
    redact: (text) => ctx.secrets.redact(text),
  });
  const before = await ctx.store.countIntents();
  const total = before.sending + before.committing;
  const tick = progress("recovering send intents", total);
  const sends = { toUnknown: 0, committed: 0, released: 0, skewRepaired: 0 };
  let passes = 0;
  for (;;) {
    const report = await runtime.worker.recover(5_000);
    sends.toUnknown += report.toUnknown;
    sends.committed += report.committed;
    sends.released += report.released;
    sends.skewRepaired += report.skewRepaired;
    passes += 1;
    tick(Math.min(sends.toUnknown + sends.committed, total));
    if (report.complete) break;
  }
  const inbound = await runtime.recoverInbound();
  const { complete: _, ...live } = await runtime.recoverLive();
  const summary: RecoverSummary = { sends, passes, inbound: { ...inbound }, live };
  out.write(options.json ? `${JSON.stringify(summary)}\n` : formatRecoverSummary(summary));
  return summary;
}

/** Sends one message durably and prints its receipt. */
export async function send(
  ctx: CliContext,
  args: { channel: string; target: string; text: string; account?: string; thread?: string },
  out: Out = process.stdout,
): Promise<MessageReceipt> {
  const channels = await cliChannels(ctx);
  const channel = channels.find(
    (c) => c.plugin.id === args.channel && (!args.account || c.account === args.account),
  );
  if (!channel) {
    const known = channels.map((c) => `${c.plugin.id}/${c.account}`).join(", ") || "none";
    throw new CliUsageError(
      `no configured channel "${args.channel}"${args.account ? ` with account "${args.account}"` : ""} (configured: ${known})`,
    );
  }
  const runtime = createMessageRuntime({
    store: ctx.store,
    adapters: [{ accountId: channel.account, adapter: channel.adapter }],
    logger: ctx.logger,
    redact: (text) => ctx.secrets.redact(text),
  });
  await runtime.start();
  try {
    const receipt = await runtime.send({
      id: randomUUID(),
      channel: channel.plugin.id,
      accountId: channel.account,
      direction: "outbound",
      target: {
        kind: "direct",
        id: args.target,
        ...(args.thread ? { threadId: args.thread } : {}),
      },
      body: { markdown: args.text },
      relation: { kind: "system", reason: "cli" },
    });
    out.write(`sent: ${receipt.platformMessageIds.join(", ")}\n`);
    return receipt;
  } finally {
    await runtime.stop();
  }
}
