/**
 * The scale-out state store on PostgreSQL (DESIGN §3, §11): several gateway processes share one
 * database; leases (`FOR UPDATE SKIP LOCKED`), ordering keys and dedupe leases keep them from
 * stepping on each other. Passes the same conformance suite as `SqliteStateStore`.
 *
 * @module
 */

import type {
  DeadLetter,
  DedupeAcquireResult,
  DedupeKey,
  DedupeRecord,
  DurableSendIntent,
  EnqueueResult,
  IntentPatch,
  IntentQuery,
  IntentStatus,
  IntentStatusRow,
  IntentTransition,
  LeaseRequest,
  LedgerEvent,
  MessageReceipt,
  MessageStateStore,
  NewDeadLetter,
  NewLedgerEvent,
  NewSendIntent,
  ReceiptRecord,
  RecoveryQuery,
  SharedLimitStore,
  SharedTake,
  WatermarkKey,
} from "@herald/core";
import { HeraldError, StoreUnavailableError } from "@herald/core";
import { Db } from "./db.ts";
import { migrate, POSTGRES_SCHEMA_VERSION, readSchemaVersion } from "./migrations.ts";
import { DEFAULT_SCHEMA, tablesOf } from "./schema.ts";
import { StatementBatcher } from "./sql/batcher.ts";
import type { Ctx } from "./sql/context.ts";
import * as dedupe from "./sql/dedupe.ts";
import { type EnqueueRow, enqueueCalls, enqueueRows } from "./sql/enqueue.ts";
import * as inbound from "./sql/inbound.ts";
import { assertLeasable, leaseDueIntents, releaseLease, renewLease } from "./sql/lease.ts";
import * as ledger from "./sql/ledger.ts";
import {
  checkBuckets,
  checkLoopPair,
  type Settle,
  SlotRegistry,
  settleTokens,
  type TakeCall,
  takeTokens,
} from "./sql/limits.ts";
import * as queries from "./sql/queries.ts";
import { SettleRide } from "./sql/settleRide.ts";
import type { Step } from "./sql/transitionPlan.ts";
import {
  applyCalls,
  type CallOutcome,
  disjoint,
  purgeTerminalIntents,
  transitionSteps,
  unwrap,
  updateStep,
} from "./sql/transitions.ts";

/** Connection-pool settings of a {@link PostgresStateStore}. */
export type PostgresPoolOptions = {
  /**
   * Most connections this store (this process) opens. Each store call holds one connection for
   * its duration — a lease round trip, a transition batch, an enqueue — so size it to the calls
   * this process runs at once: delivery-worker concurrency + receive concurrency + 2 is a good
   * start. Across every process sharing the database the sum must stay below the server's
   * `max_connections` (100 by default) minus what operators and other apps need; e.g. 4 gateway
   * processes × 10 = 40. Calls beyond `max` wait for a free connection.
   * @defaultValue 10
   */
  max?: number;
  /**
   * How long an idle connection stays open before it is closed, in milliseconds. Raise it when
   * traffic is bursty and connecting is slow (TLS); lower it to free server slots sooner.
   * @defaultValue 10000
   */
  idleTimeoutMs?: number;
  /**
   * How long a call waits for a connection (a new one, or a free slot when the pool is full)
   * before failing with `StoreUnavailableError`, in milliseconds. `0` waits forever.
   * @defaultValue 10000
   */
  connectionTimeoutMs?: number;
};

/** Options of {@link PostgresStateStore}. */
export type PostgresStateStoreOptions = {
  /**
   * libpq-style connection URL, e.g. `postgres://herald@db.internal:5432/herald?sslmode=verify-full`.
   * The password may come from the URL, `PGPASSWORD` or `~/.pgpass`; keep it out of config files.
   */
  connectionString: string;
  /**
   * PostgreSQL schema that holds every herald table (created on first open when missing). Gives
   * several herald deployments — or test runs — their own tables in one database. Lower-case
   * letters, digits and `_` only.
   * @defaultValue "herald"
   */
  schema?: string;
  /** Connection pool settings. */
  pool?: PostgresPoolOptions;
  /**
   * `application_name` of the connections, shown in `pg_stat_activity`.
   * @defaultValue "herald"
   */
  applicationName?: string;
  /** Clock for `createdAt` / `updatedAt`, epoch ms. @defaultValue Date.now */
  clock?: () => number;
  /** Stop migrating at this version (tests of the migration path only). */
  migrateTo?: number;
};

/** Longest wait (ms) of a settle for a take statement to ride on before it is sent alone. */
const SETTLE_RIDE_MS = 10;

/** A settle whose token's lease has less than this left (ms) is sent alone at once. */
const SETTLE_URGENT_MS = 100;

/**
 * {@link MessageStateStore} on PostgreSQL, through `pg`.
 *
 * The constructor only builds a connection pool; {@link PostgresStateStore.open} connects and
 * applies missing migrations (under an advisory lock, so processes may start together). The
 * first store call opens implicitly; {@link PostgresStateStore.connect} does both in one step
 * and surfaces a bad URL or a too-new schema at startup.
 *
 * Every method is atomic. A failure of the driver, the network or the server surfaces as
 * `StoreUnavailableError` (the write did not happen, or — when the connection died during
 * `COMMIT` — its outcome is unknown: retry with the same idempotency key). An enqueue resolves
 * only after its `COMMIT` succeeded, so an acknowledged intent survives any later crash.
 * `IntentConflictError`, `IllegalTransitionError` and `SchemaTooNewError` pass through unchanged.
 *
 * @example
 * const store = await PostgresStateStore.connect({
 *   connectionString: process.env.HERALD_DATABASE_URL ?? "",
 *   pool: { max: 10 },
 * });
 * const [{ intent }] = await store.enqueueIntents([{ idempotencyKey: "reply:42", message }]);
 */
export class PostgresStateStore implements MessageStateStore {
  /** The PostgreSQL schema holding this store's tables. */
  readonly schema: string;
  readonly #ctx: Ctx;
  readonly #migrateTo: number;
  readonly #slots = new SlotRegistry();
  /** Settles waiting to ride on the next take statement (`sql/settleRide.ts`). */
  readonly #ride = new SettleRide(SETTLE_RIDE_MS, (settles) => this.#settles.push(settles));
  readonly #takes = new StatementBatcher<TakeCall, SharedTake>(async (calls) => {
    const ride = this.#ride.take();
    try {
      const out = await this.#do("takeTokens", (ctx) =>
        takeTokens(ctx, this.#slots, calls, ride.settles),
      );
      ride.done();
      return out;
    } catch (error) {
      // The settles are not lost with the takes: sent alone.
      void this.#ride.alone(ride);
      throw error;
    }
  });
  readonly #enqueues = new StatementBatcher<readonly EnqueueRow[], EnqueueResult[]>((calls) =>
    this.#do("enqueueIntents", (ctx) => enqueueCalls(ctx, calls)),
  );
  /** Transitions and guarded patches: calls on distinct intents share one statement. */
  readonly #writes = new StatementBatcher<readonly Step[], CallOutcome>(
    (calls) => this.#do("transitionIntents", (ctx) => applyCalls(ctx, calls)),
    { fits: disjoint },
  );
  readonly #settles = new StatementBatcher<readonly Settle[], undefined>(async (calls) => {
    await this.#do("settleTokens", (ctx) => settleTokens(ctx, calls.flat()));
    return calls.map(() => undefined);
  });
  /**
   * Rate-limit buckets and loop-guard counts shared by every process on this database
   * (`rate_limit_slots`, `loop_guard_pairs`; see `sql/limits.ts`). The runtime uses them
   * instead of per-process memory, so N gateways together respect each declared bucket.
   */
  readonly sharedLimits: SharedLimitStore = {
    takeTokens: async (buckets, options) => {
      checkBuckets(buckets);
      return this.#takes.push({ buckets, leadMs: options?.leadMs ?? 0 });
    },
    settleTokens: async (tokens, delayMs) => {
      if (tokens.length === 0) return;
      // Sent alone when the lease it extends ends soon: it must land before the slot frees.
      // The call answered up to the blanket margin (1 % + 1 ms by default) after take + delay:
      // 2 % of the window is deducted on top.
      const left = Math.min(...tokens.map((k) => k.windowMs * 0.98)) - Math.max(0, delayMs);
      await this.#ride.push({ tokens, delayMs }, left < SETTLE_URGENT_MS);
    },
    checkLoopPair: (pair, rule) =>
      this.#do("checkLoopPair", (ctx) => checkLoopPair(ctx, pair, rule)),
  };
  #opening: Promise<void> | undefined;

  /**
   * Builds the store and its pool without connecting.
   *
   * @throws TypeError when `schema` is not a plain lower-case identifier.
   */
  constructor(options: PostgresStateStoreOptions) {
    const t = tablesOf(options.schema ?? DEFAULT_SCHEMA);
    this.schema = t.schema;
    this.#migrateTo = options.migrateTo ?? POSTGRES_SCHEMA_VERSION;
    const db = new Db({
      connectionString: options.connectionString,
      max: options.pool?.max ?? 10,
      idleTimeoutMillis: options.pool?.idleTimeoutMs ?? 10_000,
      connectionTimeoutMillis: options.pool?.connectionTimeoutMs ?? 10_000,
      application_name: options.applicationName ?? "herald",
      keepAlive: true,
    });
    this.#ctx = { db, t, clock: options.clock ?? Date.now };
  }

  /**
   * Creates a store and opens it (connects, migrates).
   *
   * @throws {@link SchemaTooNewError} when the schema was written by a newer herald.
   * @throws {@link StoreUnavailableError} when the database cannot be reached or migrated.
   */
  static async connect(options: PostgresStateStoreOptions): Promise<PostgresStateStore> {
    const store = new PostgresStateStore(options);
    try {
      await store.open();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /**
   * Connects and applies missing migrations, each in its own transaction under a
   * `pg_advisory_xact_lock` on the schema. Idempotent; a failed open is retried by the next call.
   *
   * @throws {@link SchemaTooNewError} when the schema was written by a newer herald.
   * @throws {@link StoreUnavailableError} when the database cannot be reached or migrated.
   */
  open(): Promise<void> {
    this.#opening ??= this.#ctx.db
      .run("open", () => migrate(this.#ctx.db, this.#ctx.t, this.#migrateTo))
      .catch((error: unknown) => {
        this.#opening = undefined;
        throw error;
      });
    return this.#opening;
  }

  async #do<T>(operation: string, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
    if (!this.#ctx.db.closed) await this.open();
    return this.#ctx.db.run(operation, () => fn(this.#ctx));
  }

  // ── send intents ──────────────────────────────────────────────────────────

  async enqueueIntents(inputs: readonly NewSendIntent[]): Promise<EnqueueResult[]> {
    // Serialized in the caller's tick (so statements follow call order); a failure there (a
    // failpoint, JSON) fails only this call.
    let rows: EnqueueRow[];
    try {
      rows = enqueueRows(inputs);
    } catch (error) {
      throw error instanceof HeraldError
        ? error
        : new StoreUnavailableError("enqueueIntents", error);
    }
    if (rows.length === 0) return this.#do("enqueueIntents", async () => []);
    return this.#enqueues.push(rows);
  }

  getIntent(id: string): Promise<DurableSendIntent | undefined> {
    return this.#do("getIntent", (ctx) => queries.getIntentBy(ctx, "id", id));
  }

  getIntentStatuses(ids: readonly string[]): Promise<IntentStatusRow[]> {
    return this.#do("getIntentStatuses", (ctx) => queries.getIntentStatuses(ctx, ids));
  }

  getIntentByIdempotencyKey(key: string): Promise<DurableSendIntent | undefined> {
    return this.#do("getIntentByIdempotencyKey", (ctx) =>
      queries.getIntentBy(ctx, "idempotency_key", key),
    );
  }

  async leaseDueIntents(request: LeaseRequest): Promise<DurableSendIntent[]> {
    assertLeasable(request.statuses);
    return this.#do("leaseDueIntents", (ctx) => leaseDueIntents(ctx, request));
  }

  renewLease(id: string, owner: string, expiresAt: number): Promise<boolean> {
    return this.#do("renewLease", (ctx) => renewLease(ctx, id, owner, expiresAt));
  }

  releaseLease(id: string, owner: string): Promise<boolean> {
    return this.#do("releaseLease", (ctx) => releaseLease(ctx, id, owner));
  }

  async transitionIntents(transitions: readonly IntentTransition[]): Promise<DurableSendIntent[]> {
    // Built in the caller's tick, so calls reach the statement in call order.
    const steps = transitionSteps(transitions);
    if (steps.length === 0) return this.#do("transitionIntents", async () => []);
    return unwrap(await this.#writes.push(steps));
  }

  async updateIntent(
    id: string,
    expect: { status: IntentStatus; owner?: string },
    patch: IntentPatch,
  ): Promise<DurableSendIntent> {
    const [updated] = unwrap(await this.#writes.push([updateStep(id, expect, patch)]));
    return updated as DurableSendIntent;
  }

  listIntents(query: IntentQuery = {}): Promise<DurableSendIntent[]> {
    return this.#do("listIntents", (ctx) => queries.listIntents(ctx, query));
  }

  listRecoveryCandidates(query: RecoveryQuery): Promise<DurableSendIntent[]> {
    return this.#do("listRecoveryCandidates", (ctx) => queries.listRecoveryCandidates(ctx, query));
  }

  countIntents(filter: { channel?: string } = {}): Promise<Record<IntentStatus, number>> {
    return this.#do("countIntents", (ctx) => queries.countIntents(ctx, filter));
  }

  purgeTerminalIntents(options: { before: number; limit: number }): Promise<number> {
    return this.#do("purgeTerminalIntents", (ctx) => purgeTerminalIntents(ctx, options));
  }

  // ── outbound registry ─────────────────────────────────────────────────────

  lookupReceipt(key: {
    channel: string;
    accountId?: string;
    platformMessageId: string;
    anyAccount?: boolean;
  }): Promise<(ReceiptRecord & { receipt?: MessageReceipt }) | undefined> {
    return this.#do("lookupReceipt", (ctx) => queries.lookupReceipt(ctx, key));
  }

  // ── inbound dedupe ────────────────────────────────────────────────────────

  acquireDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; leaseMs: number },
  ): Promise<DedupeAcquireResult> {
    return this.#do("acquireDedupe", (ctx) => dedupe.acquireDedupe(ctx, key, options));
  }

  renewDedupe(key: DedupeKey, owner: string, leaseExpiresAt: number): Promise<boolean> {
    return this.#do("renewDedupe", (ctx) => dedupe.renewDedupe(ctx, key, owner, leaseExpiresAt));
  }

  completeDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; ttlMs?: number; meta?: unknown },
  ): Promise<boolean> {
    return this.#do("completeDedupe", (ctx) => dedupe.completeDedupe(ctx, key, options));
  }

  releaseDedupe(key: DedupeKey, owner: string): Promise<boolean> {
    return this.#do("releaseDedupe", (ctx) => dedupe.releaseDedupe(ctx, key, owner));
  }

  getDedupe(key: DedupeKey): Promise<DedupeRecord | undefined> {
    return this.#do("getDedupe", (ctx) => dedupe.getDedupe(ctx, key));
  }

  purgeDedupe(options: { now: number; limit: number }): Promise<number> {
    return this.#do("purgeDedupe", (ctx) => dedupe.purgeDedupe(ctx, options));
  }

  // ── watermarks ────────────────────────────────────────────────────────────

  getWatermark(key: WatermarkKey): Promise<string | undefined> {
    return this.#do("getWatermark", (ctx) => inbound.getWatermark(ctx, key));
  }

  setWatermark(key: WatermarkKey, value: string): Promise<void> {
    return this.#do("setWatermark", (ctx) => inbound.setWatermark(ctx, key, value));
  }

  // ── ledger ────────────────────────────────────────────────────────────────

  appendLedger(events: readonly NewLedgerEvent[]): Promise<LedgerEvent[]> {
    return this.#do("appendLedger", (ctx) => ledger.appendLedger(ctx, events));
  }

  readLedger(query: {
    conversation: string;
    fromSeq?: number;
    toSeq?: number;
    limit?: number;
  }): Promise<LedgerEvent[]> {
    return this.#do("readLedger", (ctx) => ledger.readLedger(ctx, query));
  }

  // ── dead letters ──────────────────────────────────────────────────────────

  putDeadLetter(letter: NewDeadLetter): Promise<DeadLetter> {
    return this.#do("putDeadLetter", (ctx) => inbound.putDeadLetter(ctx, letter));
  }

  getDeadLetter(id: string): Promise<DeadLetter | undefined> {
    return this.#do("getDeadLetter", (ctx) => inbound.getDeadLetter(ctx, id));
  }

  listDeadLetters(
    query: { channel?: string; status?: DeadLetter["status"]; limit?: number } = {},
  ): Promise<DeadLetter[]> {
    return this.#do("listDeadLetters", (ctx) => inbound.listDeadLetters(ctx, query));
  }

  markDeadLetter(id: string, status: "replayed" | "discarded", now: number): Promise<void> {
    return this.#do("markDeadLetter", (ctx) => inbound.markDeadLetter(ctx, id, status, now));
  }

  // ── lifecycle ─────────────────────────────────────────────────────────────

  schemaVersion(): Promise<number> {
    return this.#do("schemaVersion", (ctx) => readSchemaVersion(ctx.db, ctx.t));
  }

  /**
   * Lets the calls made before it finish, then ends every pooled connection; later calls throw
   * `StoreUnavailableError`. Idempotent.
   */
  async close(): Promise<void> {
    await this.#ride.flush().catch(() => {});
    await this.#ctx.db.close();
  }
}
