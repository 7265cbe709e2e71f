/**
 * [H20] "Done means": 600 updates over the Telegram webhook of a real `herald start` process at
 * 100 concurrent connections, one SIGKILL mid-backlog, restart — no update answered twice, at
 * most `concurrency` intents held as unknown (item 1) and only those unanswered, every handler
 * run, and run again only if the kill came before its reply was durable (item 3; counted across
 * both processes by the handler itself).
 */
import { expect, it } from "vitest";
import { runWebhookBurst } from "./webhookBurst.ts";

it("600 webhook updates, 100 connections, one SIGKILL mid-backlog: each answered once, handlers once, held ≤ concurrency", async () => {
  const concurrency = 16;
  const report = await runWebhookBurst({
    updates: 600,
    connections: 100,
    kills: 1,
    killAfterAcks: [300],
    concurrency,
    settleTimeoutMs: 90_000,
    log: (line) => console.log(line),
  });
  console.log(`webhook burst: ${JSON.stringify(report)}`);
  expect(report.duplicated).toBe(0);
  expect(report.held).toBeLessThanOrEqual(concurrency);
  // A held reply is one the kill caught between `sending` and the platform's answer (Telegram
  // has no idempotency key: held for an operator, never blindly resent); the only unanswered
  // updates are among those.
  expect(report.lost).toBeLessThanOrEqual(report.held);
  expect((report.intents.sent ?? 0) + report.held).toBe(600);
  // Every handler ran; one runs again only when the kill came before its reply was durable
  // (the turns then in their handler, at most the 100 open connections). Before [H20] the
  // ~300 handlers waiting for a reply behind the 30/s limit all ran twice.
  expect(report.handlerRuns[0] ?? 0).toBe(0);
  expect(Object.keys(report.handlerRuns).every((n) => Number(n) <= 2)).toBe(true);
  expect(report.handlerRuns[2] ?? 0).toBeLessThanOrEqual(100);
}, 120_000);
