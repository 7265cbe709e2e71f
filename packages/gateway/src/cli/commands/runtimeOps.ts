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

/** Runs recovery passes until complete, showing progress; prints what was recovered. */
export async function recover(ctx: CliContext, out: Out = process.stdout): Promise<void> {
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
  let done = 0;
  let passes = 0;
  for (;;) {
    const report = await runtime.worker.recover(5_000);
    done += report.toUnknown + report.committed;
    passes += 1;
    tick(Math.min(done, total));
    if (report.complete) {
      out.write(
        `send intents: ${report.toUnknown} → unknown_after_send, ${report.committed} committed, ${report.skewRepaired} clock-skew repairs (${passes} pass(es))\n`,
      );
      break;
    }
  }
  const inbound = await runtime.recoverInbound();
  out.write(`inbound: ${JSON.stringify(inbound)}\n`);
  const live = await runtime.recoverLive();
  out.write(`live sessions: ${JSON.stringify(live)}\n`);
  out.write(
    "pending and unknown_after_send intents are delivered or reconciled by `herald start`.\n",
  );
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
