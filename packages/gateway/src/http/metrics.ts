/**
 * `/metrics` in the Prometheus text format (prom-client): what operators get paged on when
 * messages go missing.
 *
 * - `herald_queue_depth{status}` — intents per status, read from the store at scrape time
 *   (absent while the store cannot be read);
 * - `herald_store_up` — 1 when the store can be read *and written* (the readiness probe of
 *   `/healthz`, shared: the two never disagree), else 0 — a full disk reads fine and fails
 *   every write (the rest of the metrics are still served; the error is logged);
 * - `herald_inbound_retry_pending{channel}` — inbound events that failed before their handler
 *   ran and wait for this process to retry them (C50);
 * - `herald_send_latency_seconds` — enqueue (or last attempt start) → settled, per channel;
 * - `herald_delivery_failures_total{channel,kind}` — classified failures;
 * - `herald_inbound_total{channel,outcome}` and `herald_inbound_dedupe_hits_total{channel}`;
 * - `herald_inbound_ignored_total{channel,reason}` — events the adapter answered `ignore(reason)`;
 * - `herald_watermark_restarts_total{channel,account}` — a platform's id sequence restarted
 *   below the watermark and the watermark followed it;
 * - `herald_live_edits_total{channel}` — preview edits sent;
 * - `herald_reconcile_errors_total{channel,account}` — failed reconciliations of an in-doubt
 *   live preview (each also logged); a preview may stay visible until a later pass succeeds.
 * - `herald_intents_expired_total{channel,account}` — intents that ended `expired`: older than
 *   their `maxAgeMs`, not sent ([H25], C55);
 * - `herald_receipt_conflicts_total{channel,account}` — sends held because the platform answered
 *   a message id that is already another unit's receipt (`failure.reason` `receipt_conflict`);
 * - `herald_account_up{channel,account}` — 1 while the account's receiver is up, else 0;
 * - `herald_account_state{channel,account,state}` — 1 for the current state
 *   (`connecting | up | down`);
 * - `herald_account_restarts_total{channel,account}` — (re)starts after a failure (a gauge of
 *   the supervisor's counter).
 *
 * @module
 */
import {
  type HeraldLogger,
  INTENT_STATUSES,
  type MessageStateStore,
  silentLogger,
} from "@herald/core";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { AccountHealth } from "../accounts/AccountSupervisor.ts";
import { type StoreProbe, storeProber } from "./probes.ts";

/** The gateway's metrics and their registry. */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly sendLatency: Histogram<"channel" | "status">;
  readonly failures: Counter<"channel" | "kind">;
  readonly inbound: Counter<"channel" | "outcome">;
  readonly dedupeHits: Counter<"channel">;
  readonly ignored: Counter<"channel" | "reason">;
  readonly watermarkRestarts: Counter<"channel" | "account">;
  readonly liveEdits: Counter<"channel">;
  readonly reconcileErrors: Counter<"channel" | "account">;
  readonly receiptConflicts: Counter<"channel" | "account">;
  /** Replies not sent because they were older than their `maxAgeMs` ([H25], C55). */
  readonly expired: Counter<"channel" | "account">;

  /**
   * The store probe of `herald_store_up`: the readiness probe's (read the queue counts, write the
   * probe's watermark), run at every scrape, so `/metrics` and `/healthz` agree.
   */
  readonly #probe: () => Promise<StoreProbe>;

  /** @param logger - where a failed store read or write at scrape time is logged. */
  constructor(store: MessageStateStore, logger: HeraldLogger = silentLogger) {
    const registers = [this.registry];
    this.#probe = storeProber({ store, logger, cacheMs: 0, what: "metrics" });
    this.#storeUp = new Gauge({
      name: "herald_store_up",
      help: "1 when the state store could be read and written at the last scrape, else 0",
      registers,
    });
    const pendingInbound = () => this.#pendingInbound();
    new Gauge({
      name: "herald_inbound_retry_pending",
      help: "Inbound events that failed before their handler ran, waiting for a retry here",
      labelNames: ["channel"],
      registers,
      collect() {
        this.reset();
        const byChannel = new Map<string, number>();
        for (const p of pendingInbound())
          byChannel.set(p.channel, (byChannel.get(p.channel) ?? 0) + 1);
        for (const [channel, n] of byChannel) this.set({ channel }, n);
      },
    });
    this.#queueDepth = new Gauge({
      name: "herald_queue_depth",
      help: "Send intents per status (absent while the store cannot be read)",
      labelNames: ["status"],
      registers,
    });
    this.#store = store;
    this.sendLatency = new Histogram({
      name: "herald_send_latency_seconds",
      help: "Time from an intent's creation to its settled status, in seconds",
      labelNames: ["channel", "status"],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.failures = new Counter({
      name: "herald_delivery_failures_total",
      help: "Classified delivery failures",
      labelNames: ["channel", "kind"],
      registers,
    });
    this.inbound = new Counter({
      name: "herald_inbound_total",
      help: "Inbound events by outcome",
      labelNames: ["channel", "outcome"],
      registers,
    });
    this.dedupeHits = new Counter({
      name: "herald_inbound_dedupe_hits_total",
      help: "Inbound events recognised as already processed or in flight",
      labelNames: ["channel"],
      registers,
    });
    this.ignored = new Counter({
      name: "herald_inbound_ignored_total",
      help: "Inbound events the channel adapter answered ignore(reason) (logged, never silent)",
      labelNames: ["channel", "reason"],
      registers,
    });
    this.watermarkRestarts = new Counter({
      name: "herald_watermark_restarts_total",
      help: "Polling id sequences that restarted below the watermark (the watermark followed)",
      labelNames: ["channel", "account"],
      registers,
    });
    const accounts = () => this.#accounts();
    new Gauge({
      name: "herald_account_up",
      help: "1 while the account's receiver is up, else 0",
      labelNames: ["channel", "account"],
      registers,
      collect() {
        this.reset();
        for (const a of accounts())
          this.set({ channel: a.channel, account: a.account }, a.state === "up" ? 1 : 0);
      },
    });
    new Gauge({
      name: "herald_account_state",
      help: "1 for the current receiver state of each account (connecting, up, down)",
      labelNames: ["channel", "account", "state"],
      registers,
      collect() {
        this.reset();
        for (const a of accounts())
          for (const state of ["connecting", "up", "down"])
            this.set({ channel: a.channel, account: a.account, state }, a.state === state ? 1 : 0);
      },
    });
    new Gauge({
      name: "herald_account_restarts_total",
      help: "Account (re)starts after a failed start or a dropped connection",
      labelNames: ["channel", "account"],
      registers,
      collect() {
        this.reset();
        for (const a of accounts())
          this.set({ channel: a.channel, account: a.account }, a.restarts);
      },
    });
    this.liveEdits = new Counter({
      name: "herald_live_edits_total",
      help: "Live preview edits sent",
      labelNames: ["channel"],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: "herald_reconcile_errors_total",
      help: "Failed reconciliations of in-doubt live previews (each is logged)",
      labelNames: ["channel", "account"],
      registers,
    });
    this.receiptConflicts = new Counter({
      name: "herald_receipt_conflicts_total",
      help: "Sends held because the platform answered another unit's message id (receipt_conflict)",
      labelNames: ["channel", "account"],
      registers,
    });
    this.expired = new Counter({
      name: "herald_intents_expired_total",
      help: "Intents not sent because they were older than their maxAgeMs (status expired)",
      labelNames: ["channel", "account"],
      registers,
    });
  }

  /** Exposes each account's health (read at scrape time). */
  watchAccounts(accounts: () => readonly AccountHealth[]): void {
    this.#accounts = accounts;
  }

  /** Where `herald_inbound_retry_pending` reads the waiting inbound (`runtime.pendingInbound`). */
  watchPendingInbound(pending: () => readonly { channel: string }[]): void {
    this.#pendingInbound = pending;
  }

  #pendingInbound: () => readonly { channel: string }[] = () => [];

  #accounts: () => readonly AccountHealth[] = () => [];
  readonly #storeUp: Gauge;

  async #countsOrUndefined() {
    try {
      return await this.#store.countIntents();
    } catch {
      return undefined;
    }
  }
  readonly #queueDepth: Gauge<"status">;
  readonly #store: MessageStateStore;

  /**
   * The exposition text and its content type. Reads the queue depth from the store first; a
   * store outage never fails the scrape: everything else is served, `herald_store_up` is 0 and
   * the error goes to the logger.
   */
  async render(): Promise<{ body: string; contentType: string }> {
    // The probe logs its own failure (read or write).
    const probe = await this.#probe();
    if (probe.up) {
      for (const status of INTENT_STATUSES) this.#queueDepth.set({ status }, probe.queue[status]);
      this.#storeUp.set(1);
    } else {
      this.#storeUp.set(0);
      // A store that reads but cannot write still has a queue to show.
      const counts = probe.failed === "write" ? await this.#countsOrUndefined() : undefined;
      if (counts)
        for (const status of INTENT_STATUSES) this.#queueDepth.set({ status }, counts[status]);
      else this.#queueDepth.reset();
    }
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
