/**
 * Forward-only schema migrations of the PostgreSQL store. Applied versions are rows of
 * `<schema>.schema_migrations`; each missing step runs in its own transaction that first takes a
 * transaction-scoped advisory lock on the schema, so several processes starting at once
 * serialize: the first applies the step, the others find it applied and move on.
 * Never edit a shipped step: add a new one.
 *
 * @module
 */
import {
  INTENT_STATUSES,
  SchemaTooNewError,
  TERMINAL_STATUSES,
  UNSENT_STATUSES,
} from "@herald/core";
import type { Db, Queryable } from "./db.ts";
import { lockKeys, type Tables } from "./schema.ts";

/** One schema step: `version` is the version after it ran; `sql` builds its DDL for a schema. */
export type PostgresMigration = {
  version: number;
  description: string;
  sql: (t: Tables) => string;
};

const list = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(", ");

/**
 * The lease's conditions on row `a` of the lease function (migration 10): in a leasable and
 * requested status, due, unleased, of the channel asked for.
 */
const leasableNow = (a: string) =>
  `${a}.status IN ('pending', 'unknown_after_send') AND ${a}.status = ANY (statuses)
    AND (${a}.next_attempt_at IS NULL OR ${a}.next_attempt_at <= now_ms)
    AND (${a}.lease_expires_at IS NULL OR ${a}.lease_expires_at <= now_ms)
    AND (channel_filter IS NULL OR ${a}.channel = channel_filter)`;

/** The statuses of schema version 1 (shipped steps never change; `expired` came in 11). */
const V1_STATUSES = [
  "pending",
  "sending",
  "committing",
  "unknown_after_send",
  "sent",
  "failed",
  "cancelled",
];

/** Every migration, in order. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description:
      "send intents, outbound receipt registry, inbound dedupe, watermarks, turn ledger, dead letters",
    sql: (t) => `
      CREATE TABLE ${t.intents} (
        id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        idempotency_key text NOT NULL UNIQUE,
        channel text NOT NULL,
        account_id text,
        ordering_key text NOT NULL,
        status text NOT NULL CHECK (status IN (${list(V1_STATUSES)})),
        attempt integer NOT NULL DEFAULT 0,
        next_attempt_at bigint,
        due_at bigint NOT NULL,
        lease_owner text,
        lease_expires_at bigint,
        turn_id text,
        message json NOT NULL,
        operation json NOT NULL,
        batch json,
        live_state json,
        receipt json,
        partial_receipt json,
        failure json,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX intents_due ON ${t.intents} (due_at, seq)
        WHERE status IN ('pending', 'unknown_after_send');
      CREATE INDEX intents_unsent_by_key ON ${t.intents} (ordering_key, seq)
        WHERE status IN (${list(UNSENT_STATUSES)});
      CREATE INDEX intents_status_seq ON ${t.intents} (status, seq);
      CREATE INDEX intents_terminal_updated ON ${t.intents} (updated_at)
        WHERE status IN ('sent', 'failed', 'cancelled');

      CREATE TABLE ${t.receipts} (
        channel text NOT NULL,
        account_id text NOT NULL DEFAULT '',
        platform_message_id text NOT NULL,
        intent_id text NOT NULL REFERENCES ${t.intents} (id) ON DELETE CASCADE,
        part_index integer NOT NULL,
        recorded_at bigint NOT NULL,
        PRIMARY KEY (channel, account_id, platform_message_id)
      );
      CREATE INDEX receipts_intent ON ${t.receipts} (intent_id);

      CREATE TABLE ${t.dedupe} (
        channel text NOT NULL,
        account_id text NOT NULL DEFAULT '',
        event_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('in_flight', 'done')),
        owner text,
        lease_expires_at bigint,
        expires_at bigint,
        meta json,
        PRIMARY KEY (channel, account_id, event_id)
      );
      CREATE INDEX dedupe_expiry ON ${t.dedupe} (expires_at) WHERE status = 'done';

      CREATE TABLE ${t.watermarks} (
        channel text NOT NULL,
        account_id text NOT NULL DEFAULT '',
        source text NOT NULL DEFAULT '',
        value text NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (channel, account_id, source)
      );

      CREATE TABLE ${t.ledgerHeads} (
        conversation text PRIMARY KEY,
        last_seq bigint NOT NULL
      );
      CREATE TABLE ${t.ledger} (
        conversation text NOT NULL,
        seq bigint NOT NULL,
        type text NOT NULL,
        turn_id text,
        at bigint NOT NULL,
        data json,
        PRIMARY KEY (conversation, seq)
      );
      CREATE INDEX ledger_turn ON ${t.ledger} (turn_id) WHERE turn_id IS NOT NULL;

      CREATE TABLE ${t.deadLetters} (
        id text PRIMARY KEY,
        channel text NOT NULL,
        account_id text,
        raw json NOT NULL,
        error json NOT NULL,
        status text NOT NULL CHECK (status IN ('new', 'replayed', 'discarded')),
        received_at bigint NOT NULL,
        replayed_at bigint,
        replay_count integer NOT NULL DEFAULT 0
      );
      CREATE INDEX dead_letters_status ON ${t.deadLetters} (status, received_at);
    `,
  },
  {
    version: 2,
    description: "per-unit first dispatch time (idempotency windows)",
    sql: (t) => `
      ALTER TABLE ${t.intents} ADD COLUMN first_dispatch json;
    `,
  },
  {
    version: 3,
    description: "rate-limit buckets and loop-guard counts shared by every process",
    sql: (t) => `
      CREATE TABLE ${t.rateSlots} (
        bucket text NOT NULL,
        slot integer NOT NULL,
        free_at bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (bucket, slot)
      );
      CREATE TABLE ${t.loopPairs} (
        pair text PRIMARY KEY,
        times bigint[] NOT NULL DEFAULT '{}',
        cooldown_until bigint NOT NULL DEFAULT 0,
        seen_at bigint NOT NULL
      );
      CREATE INDEX loop_guard_pairs_seen ON ${t.loopPairs} (seen_at);
    `,
  },
  {
    version: 4,
    description: "take the rate-limit tokens of many calls in one statement",
    // Calls in order, each all of its buckets or none (see sql/limits.ts): for every bucket of a
    // call one free slot is locked (SKIP LOCKED: other processes pick other slots); only when
    // every bucket had one are they leased until now + window. A refused call gets, per bucket,
    // how long until its earliest slot frees. `calls` numbers the call of each bucket entry;
    // the entries of one call are consecutive.
    sql: (t) => `
      CREATE FUNCTION ${t.takeTokensFn}(
        keys text[], lims integer[], wins bigint[], calls integer[])
      RETURNS TABLE (r_call integer, r_bucket text, r_slot integer, r_free_at bigint, r_wait bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        now_ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        n integer := coalesce(array_length(keys, 1), 0);
        i integer := 1;
        j integer;
        first integer;
        got integer;
        picked integer[];
        ok boolean;
      BEGIN
        WHILE i <= n LOOP
          first := i;
          ok := true;
          picked := ARRAY[]::integer[];
          LOOP
            IF ok THEN
              SELECT s.slot INTO got FROM ${t.rateSlots} AS s
              WHERE s.bucket = keys[i] AND s.slot < lims[i] AND s.free_at <= now_ms
              ORDER BY s.free_at LIMIT 1
              FOR UPDATE OF s SKIP LOCKED;
              IF NOT FOUND THEN ok := false; END IF;
              picked := picked || got;
            END IF;
            i := i + 1;
            EXIT WHEN i > n OR calls[i] <> calls[first];
          END LOOP;
          FOR j IN first .. i - 1 LOOP
            r_call := calls[j];
            r_bucket := keys[j];
            IF ok THEN
              r_slot := picked[j - first + 1];
              r_free_at := now_ms + wins[j];
              r_wait := NULL;
              UPDATE ${t.rateSlots} AS s SET free_at = r_free_at
              WHERE s.bucket = r_bucket AND s.slot = r_slot;
            ELSE
              r_slot := NULL;
              r_free_at := NULL;
              r_wait := (SELECT min(s.free_at) FROM ${t.rateSlots} AS s
                         WHERE s.bucket = keys[j] AND s.slot < lims[j]) - now_ms;
            END IF;
            RETURN NEXT;
          END LOOP;
        END LOOP;
      END
      $fn$;
    `,
  },
  {
    version: 5,
    description: "enqueue a batch of intents in one statement",
    // What the enqueue transaction did in four round trips (BEGIN, advisory locks, INSERTs,
    // COMMIT), as one call in autocommit: first the advisory locks of every ordering key and
    // idempotency key of the batch (sorted, deduplicated: deadlock-free), then the intents in
    // input order (so seq order is input order and, per ordering key, commit order), each
    // either inserted — and leased at once when its claim holds and no earlier unsent intent
    // shares its ordering key — or, for a known idempotency key, the stored row returned.
    sql: (t) => `
      CREATE FUNCTION ${t.enqueueFn}(
        ids text[], keys text[], channels text[], accounts text[], okeys text[],
        next_ats bigint[], dues bigint[], turns text[], messages json[], operations json[],
        batches json[], lives json[], claim_owners text[], claim_expires bigint[], now_ms bigint)
      RETURNS TABLE (r_idx integer, r_created boolean, r_row ${t.intents})
      LANGUAGE plpgsql AS $fn$
      DECLARE
        n integer := coalesce(array_length(ids, 1), 0);
        i integer;
        rec ${t.intents};
        claimed ${t.intents};
      BEGIN
        PERFORM count(pg_advisory_xact_lock(k.space, k.hash)) FROM (
          SELECT DISTINCT space, hash FROM (
            SELECT ${lockKeys.orderingSpace(t.schema)} AS space, hashtext(o) AS hash
            FROM unnest(okeys) AS o
            UNION ALL
            SELECT ${lockKeys.idempotencySpace(t.schema)}, hashtext(x) FROM unnest(keys) AS x
          ) AS a ORDER BY space, hash
        ) AS k;
        FOR i IN 1 .. n LOOP
          INSERT INTO ${t.intents} (id, idempotency_key, channel, account_id, ordering_key,
            status, attempt, next_attempt_at, due_at, turn_id, message, operation, batch,
            live_state, created_at, updated_at)
          VALUES (ids[i], keys[i], channels[i], accounts[i], okeys[i], 'pending', 0,
            next_ats[i], dues[i], turns[i], messages[i], operations[i], batches[i], lives[i],
            now_ms, now_ms)
          ON CONFLICT (idempotency_key) DO NOTHING
          RETURNING * INTO rec;
          IF FOUND THEN
            r_created := true;
            IF claim_owners[i] IS NOT NULL THEN
              UPDATE ${t.intents} AS u SET lease_owner = claim_owners[i],
                lease_expires_at = claim_expires[i]
              WHERE u.id = rec.id AND NOT EXISTS (
                SELECT 1 FROM ${t.intents} AS e WHERE e.ordering_key = u.ordering_key
                  AND e.seq < u.seq AND e.status IN (${list(UNSENT_STATUSES)}))
              RETURNING * INTO claimed;
              IF FOUND THEN rec := claimed; END IF;
            END IF;
          ELSE
            r_created := false;
            SELECT * INTO rec FROM ${t.intents} WHERE idempotency_key = keys[i];
            IF NOT FOUND THEN
              RAISE EXCEPTION 'idempotency key % vanished mid-enqueue', keys[i];
            END IF;
          END IF;
          r_idx := i;
          r_row := rec;
          RETURN NEXT;
        END LOOP;
      END
      $fn$;
    `,
  },
  {
    version: 6,
    description: "lease due intents walking the due index in order, whatever the statistics say",
    // The lease statement of sql/lease.ts as a function planned with sorts and bitmap scans
    // off. On a table that filled faster than autovacuum analyzes it (a backlog in its first
    // minute), the planner estimated a handful of pending rows and read all of them through a
    // bitmap scan, anti-joined and sorted them for 16: 20 ms per lease with 7,500 pending,
    // against 0.5 ms walking `intents_due` in (due_at, seq) order until the limit. `statuses`
    // (checked by the caller: pending, unknown_after_send) filters within the index's predicate.
    // No JIT: a plan costed with a disabled node would cross `jit_above_cost` and compile.
    sql: (t) => `
      CREATE FUNCTION ${t.leaseFn}(
        statuses text[], now_ms bigint, channel_filter text, max_rows integer,
        owner_id text, expires_ms bigint, updated_ms bigint)
      RETURNS SETOF ${t.intents}
      LANGUAGE plpgsql
      SET enable_sort = off
      SET enable_bitmapscan = off
      SET jit = off
      AS $fn$
      BEGIN
        RETURN QUERY
        WITH picked AS (
          SELECT i.id FROM ${t.intents} AS i
          WHERE i.status IN ('pending', 'unknown_after_send')
            AND i.status = ANY (statuses)
            AND (i.next_attempt_at IS NULL OR i.next_attempt_at <= now_ms)
            AND (i.lease_expires_at IS NULL OR i.lease_expires_at <= now_ms)
            AND (channel_filter IS NULL OR i.channel = channel_filter)
            AND NOT EXISTS (
              SELECT 1 FROM ${t.intents} AS e
              WHERE e.ordering_key = i.ordering_key AND e.seq < i.seq
                AND e.status IN (${list(UNSENT_STATUSES)}))
          ORDER BY i.due_at, i.seq
          LIMIT max_rows
          FOR UPDATE OF i SKIP LOCKED
        )
        UPDATE ${t.intents} AS u
        SET lease_owner = owner_id, lease_expires_at = expires_ms, updated_at = updated_ms
        FROM picked WHERE u.id = picked.id
        RETURNING u.*;
      END
      $fn$;
    `,
  },
  {
    version: 7,
    description: "plan the lease function's statement anew on every call",
    // PL/pgSQL caches a statement's plan and, after five calls, may switch to a generic plan
    // (parameters unknown): a worker that polled an empty queue five times then checked the
    // ordering-key FIFO of every candidate with a sequential scan of the table (7.4 ms per
    // lease with 3,000 pending instead of 0.54 ms). Custom plans, like the unnamed statement
    // the store sent before migration 6.
    sql: (t) => `
      ALTER FUNCTION ${t.leaseFn}(text[], bigint, text, integer, text, bigint, bigint)
        SET plan_cache_mode = force_custom_plan;
    `,
  },
  {
    version: 8,
    description: "find a bucket's free rate-limit slot through an index on when it frees",
    // take_tokens picks a bucket's earliest-freeing slot (free_at <= now, ORDER BY free_at) and
    // a refused call reads the bucket's earliest free_at. With only the primary key both read
    // and sorted every slot of the bucket: 0.41 ms per call for a 600-per-second bot bucket,
    // against 0.04 ms walking this index to its first entry — a shared bucket's cost no longer
    // grows with its limit. Updates of free_at are then not HOT; autovacuum keeps up with a
    // table of one row per token.
    sql: (t) => `
      CREATE INDEX rate_limit_slots_free ON ${t.rateSlots} (bucket, free_at);
    `,
  },
  {
    version: 9,
    description:
      "settle answered tokens and take new ones in one statement, ahead of when they free",
    // `settled` says the call that last took the slot has answered and its settle moved
    // free_at to answer + window (or found it later already): only such a slot may be taken
    // ahead (up to `leads` ms before free_at; the caller starts its call no earlier, and gets
    // how far ahead as r_ahead). A slot whose call has not answered is taken only once free, as
    // before: its call may be re-counted at an answer still to come. All the slots of one call
    // are leased as of its latest one (now + r_ahead), so none frees before the call starts +
    // window. Settles (s_*) run first: the answers since the last statement ride on the next
    // take instead of costing a statement each. take_tokens (migration 4) stays for processes
    // of the previous build still running: it takes nothing ahead and marks what it takes
    // unsettled, which its callers never settle in this sense, so the new build never takes
    // their slots early. Slots start unsettled (a new one is free anyway), so a slot leased by
    // such a process before this step ran is not taken early either.
    sql: (t) => `
      ALTER TABLE ${t.rateSlots} ADD COLUMN settled boolean NOT NULL DEFAULT false;
      CREATE FUNCTION ${t.settleTakeFn}(
        keys text[], lims integer[], wins bigint[], calls integer[], leads bigint[],
        s_keys text[], s_slots integer[], s_free bigint[], s_delays bigint[])
      RETURNS TABLE (r_call integer, r_bucket text, r_slot integer, r_free_at bigint,
        r_wait bigint, r_ahead bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        now_ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        n integer := coalesce(array_length(keys, 1), 0);
        i integer := 1;
        j integer;
        first integer;
        got integer;
        got_at bigint;
        ahead bigint;
        picked integer[];
        ok boolean;
        failed integer;
        at integer;
        -- Buckets that refused a call in this statement, and their waits: the calls behind it
        -- that need one are refused without reading the slots again (a line of waiters for a
        -- spent bucket costs one lookup, not one per waiter).
        spent text[] := ARRAY[]::text[];
        spent_wait bigint[] := ARRAY[]::bigint[];
      BEGIN
        IF coalesce(array_length(s_keys, 1), 0) > 0 THEN
          UPDATE ${t.rateSlots} AS s SET free_at = v.free_at + v.delay, settled = true
          FROM unnest(s_keys, s_slots, s_free, s_delays) AS v(bucket, slot, free_at, delay)
          WHERE s.bucket = v.bucket AND s.slot = v.slot AND s.free_at = v.free_at;
        END IF;
        WHILE i <= n LOOP
          first := i;
          ok := true;
          failed := NULL;
          ahead := 0;
          picked := ARRAY[]::integer[];
          LOOP
            IF ok AND keys[i] = ANY(spent) THEN
              ok := false;
              failed := i;
            ELSIF ok THEN
              SELECT s.slot, s.free_at INTO got, got_at FROM ${t.rateSlots} AS s
              WHERE s.bucket = keys[i] AND s.slot < lims[i] AND s.free_at <= now_ms + leads[i]
                AND (s.settled OR s.free_at <= now_ms)
              ORDER BY s.free_at LIMIT 1
              FOR UPDATE OF s SKIP LOCKED;
              IF NOT FOUND THEN
                ok := false;
                failed := i;
                spent := spent || keys[i];
                -- The wait is until the bucket's earliest slot frees, the lead earlier when
                -- that slot's call answered (it may then be taken ahead).
                spent_wait := spent_wait || (
                  SELECT s.free_at - CASE WHEN s.settled THEN leads[i] ELSE 0 END - now_ms
                  FROM ${t.rateSlots} AS s
                  WHERE s.bucket = keys[i] AND s.slot < lims[i]
                  ORDER BY s.free_at LIMIT 1);
              ELSE
                ahead := greatest(ahead, got_at - now_ms);
              END IF;
              picked := picked || got;
            END IF;
            i := i + 1;
            EXIT WHEN i > n OR calls[i] <> calls[first];
          END LOOP;
          FOR j IN first .. i - 1 LOOP
            r_call := calls[j];
            r_bucket := keys[j];
            IF ok THEN
              r_slot := picked[j - first + 1];
              r_free_at := now_ms + ahead + wins[j];
              r_wait := NULL;
              r_ahead := ahead;
              UPDATE ${t.rateSlots} AS s SET free_at = r_free_at, settled = false
              WHERE s.bucket = r_bucket AND s.slot = r_slot;
            ELSE
              -- Refused: the bucket that had no slot says how long (the others, not asked or
              -- with a slot to spare, say nothing).
              r_slot := NULL;
              r_free_at := NULL;
              r_ahead := NULL;
              r_wait := NULL;
              IF j = failed THEN
                at := array_position(spent, keys[j]);
                r_wait := spent_wait[at];
              END IF;
            END IF;
            RETURN NEXT;
          END LOOP;
        END LOOP;
      END
      $fn$;
      CREATE OR REPLACE FUNCTION ${t.takeTokensFn}(
        keys text[], lims integer[], wins bigint[], calls integer[])
      RETURNS TABLE (r_call integer, r_bucket text, r_slot integer, r_free_at bigint, r_wait bigint)
      LANGUAGE sql AS $fn$
        SELECT f.r_call, f.r_bucket, f.r_slot, f.r_free_at, f.r_wait
        FROM ${t.settleTakeFn}(keys, lims, wins, calls,
          array_fill(0::bigint, ARRAY[coalesce(array_length(keys, 1), 0)]),
          '{}', '{}', '{}', '{}') AS f;
      $fn$;
    `,
  },
  {
    version: 10,
    description: "lease past ordering keys that are busy without walking their backlog",
    // The lease walked `intents_due` until it had its limit: when the chats at the front of the
    // queue all had a message in flight, every candidate behind them failed the FIFO check and
    // the walk went on to the end of the backlog (3,000 rows and 4 chats: every row read on
    // each lease; 42 ms per lease in the four-process drain at 48 calls per process). Now it
    // walks at most `scan_cap` candidates (4 × the limit, at least 64); when those did not
    // give the limit, it takes the rest from the heads of the ordering keys — the oldest
    // unsent intent of each key, found through `intents_unsent_by_key` one key at a time (a
    // loose index scan), so the cost is the number of keys with unsent intents, not the
    // backlog. The heads are leased in due order too, with the same conditions; the rows
    // leased by the first step already fail them (their lease is this one).
    sql: (t) => `
      CREATE OR REPLACE FUNCTION ${t.leaseFn}(
        statuses text[], now_ms bigint, channel_filter text, max_rows integer,
        owner_id text, expires_ms bigint, updated_ms bigint)
      RETURNS SETOF ${t.intents}
      LANGUAGE plpgsql
      SET enable_sort = off
      SET enable_bitmapscan = off
      SET jit = off
      SET plan_cache_mode = force_custom_plan
      AS $fn$
      DECLARE
        scan_cap integer := greatest(64, least(max_rows, 1000000) * 4);
        walked integer;
        got integer;
        head_ids text[];
        head text;
        n integer;
      BEGIN
        SELECT count(*) INTO walked FROM (
          SELECT 1 FROM ${t.intents} AS i
          WHERE ${leasableNow("i")}
          ORDER BY i.due_at, i.seq
          LIMIT scan_cap
        ) AS c;
        RETURN QUERY
        WITH candidates AS (
          SELECT i.id, i.due_at, i.seq FROM ${t.intents} AS i
          WHERE ${leasableNow("i")}
          ORDER BY i.due_at, i.seq
          LIMIT scan_cap
        ), picked AS (
          SELECT i.id FROM candidates AS c JOIN ${t.intents} AS i ON i.id = c.id
          WHERE ${leasableNow("i")}
            AND NOT EXISTS (
              SELECT 1 FROM ${t.intents} AS e
              WHERE e.ordering_key = i.ordering_key AND e.seq < i.seq
                AND e.status IN (${list(UNSENT_STATUSES)}))
          ORDER BY c.due_at, c.seq
          LIMIT max_rows
          FOR UPDATE OF i SKIP LOCKED
        )
        UPDATE ${t.intents} AS u
        SET lease_owner = owner_id, lease_expires_at = expires_ms, updated_at = updated_ms
        FROM picked WHERE u.id = picked.id
        RETURNING u.*;
        GET DIAGNOSTICS got = ROW_COUNT;
        -- (A lease that ends at once would let the heads step take the rows just leased.)
        IF got >= max_rows OR walked < scan_cap OR expires_ms <= now_ms THEN
          RETURN;
        END IF;
        WITH RECURSIVE keys AS (
          (SELECT e.ordering_key AS k FROM ${t.intents} AS e
           WHERE e.status IN (${list(UNSENT_STATUSES)})
           ORDER BY e.ordering_key LIMIT 1)
          UNION ALL
          SELECT (SELECT e.ordering_key FROM ${t.intents} AS e
                  WHERE e.status IN (${list(UNSENT_STATUSES)}) AND e.ordering_key > keys.k
                  ORDER BY e.ordering_key LIMIT 1)
          FROM keys WHERE keys.k IS NOT NULL
        )
        SELECT array_agg((SELECT e.id FROM ${t.intents} AS e
                          WHERE e.ordering_key = keys.k
                            AND e.status IN (${list(UNSENT_STATUSES)})
                          ORDER BY e.seq LIMIT 1))
        INTO head_ids
        FROM keys WHERE keys.k IS NOT NULL;
        -- The leasable heads in due order, each read by its id (a handful of rows, sorted
        -- in memory: this function's setting, restored when it returns), then leased one by
        -- one, skipping a row another leaser holds.
        SET LOCAL enable_sort = on;
        FOR head IN
          SELECT x.id FROM unnest(head_ids) AS h(id)
          CROSS JOIN LATERAL (
            SELECT i.id, i.due_at, i.seq FROM ${t.intents} AS i
            WHERE i.id = h.id
              AND ${leasableNow("i")}
            OFFSET 0) AS x
          ORDER BY x.due_at, x.seq
        LOOP
          EXIT WHEN got >= max_rows;
          RETURN QUERY
          UPDATE ${t.intents} AS u
          SET lease_owner = owner_id, lease_expires_at = expires_ms, updated_at = updated_ms
          FROM (
            SELECT i.id FROM ${t.intents} AS i
            WHERE i.id = head
              AND ${leasableNow("i")}
            FOR UPDATE OF i SKIP LOCKED) AS p
          WHERE u.id = p.id
          RETURNING u.*;
          GET DIAGNOSTICS n = ROW_COUNT;
          got := got + n;
        END LOOP;
      END
      $fn$;
    `,
  },
  {
    version: 11,
    description: "expired intents (maxAgeMs), recovery that reads only what it may repair",
    // [H25]. 'expired' is a terminal status: the status check and the terminal index (purge,
    // rate-limit seed) list it. `expires_at` (epoch ms) is set by the enqueue that carries a
    // maxAgeMs, through a function that wraps the enqueue of migration 5 in the same statement
    // (the enqueues without one keep calling that function as before). The recovery pass reads
    // the leased unsent intents through `intents_leased` (the intents leased right now, never
    // the backlog) and the skewed ones through `intents_due`.
    sql: (t) => `
      ALTER TABLE ${t.intents} ADD COLUMN expires_at bigint;
      ALTER TABLE ${t.intents} DROP CONSTRAINT intents_status_check;
      ALTER TABLE ${t.intents} ADD CONSTRAINT intents_status_check
        CHECK (status IN (${list(INTENT_STATUSES)}));
      DROP INDEX "${t.schema}".intents_terminal_updated;
      CREATE INDEX intents_terminal_updated ON ${t.intents} (updated_at)
        WHERE status IN (${list(TERMINAL_STATUSES)});
      CREATE INDEX intents_leased ON ${t.intents} (seq)
        WHERE lease_owner IS NOT NULL AND status IN ('pending', 'unknown_after_send');
      -- Recovery's reads ([H25]), as functions planned with sorts and bitmap scans off (as the
      -- lease, migration 6): on a table not analyzed yet the planner read every pending row
      -- through intents_status_seq and sorted them; these walk their index from the bound.
      CREATE FUNCTION ${t.recoveryLeasedFn}(after_seq bigint, max_rows integer)
      RETURNS SETOF ${t.intents}
      LANGUAGE sql STABLE
      SET enable_sort = off
      SET enable_bitmapscan = off
      SET jit = off
      SET plan_cache_mode = force_custom_plan
      AS $fn$
        SELECT * FROM ${t.intents}
        WHERE lease_owner IS NOT NULL AND status IN ('pending', 'unknown_after_send')
          AND seq > after_seq
        ORDER BY seq LIMIT max_rows;
      $fn$;
      CREATE FUNCTION ${t.recoverySkewedFn}(due_after bigint, max_rows integer)
      RETURNS SETOF ${t.intents}
      LANGUAGE sql STABLE
      SET enable_sort = off
      SET enable_bitmapscan = off
      SET jit = off
      SET plan_cache_mode = force_custom_plan
      AS $fn$
        SELECT * FROM ${t.intents}
        WHERE status IN ('pending', 'unknown_after_send') AND status = 'pending'
          AND due_at > due_after
        ORDER BY due_at, seq LIMIT max_rows;
      $fn$;
      CREATE FUNCTION ${t.enqueueExpiringFn}(
        ids text[], keys text[], channels text[], accounts text[], okeys text[],
        next_ats bigint[], dues bigint[], turns text[], messages json[], operations json[],
        batches json[], lives json[], claim_owners text[], claim_expires bigint[], now_ms bigint,
        expires bigint[])
      RETURNS TABLE (r_idx integer, r_created boolean, r_row ${t.intents})
      LANGUAGE plpgsql AS $fn$
      DECLARE
        r record;
      BEGIN
        FOR r IN SELECT * FROM ${t.enqueueFn}(ids, keys, channels, accounts, okeys, next_ats,
          dues, turns, messages, operations, batches, lives, claim_owners, claim_expires, now_ms)
        LOOP
          r_idx := r.r_idx;
          r_created := r.r_created;
          r_row := r.r_row;
          IF r.r_created AND expires[r.r_idx] IS NOT NULL THEN
            UPDATE ${t.intents} AS u SET expires_at = expires[r.r_idx]
            WHERE u.id = (r.r_row).id
            RETURNING * INTO r_row;
          END IF;
          RETURN NEXT;
        END LOOP;
      END
      $fn$;
    `,
  },
];

/** The newest schema version this build knows. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.at(-1)?.version ?? 0;

/** Creates the schema and the version table when missing; the caller holds the migration lock. */
async function bootstrap(db: Queryable, t: Tables): Promise<void> {
  const { rows } = await db.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [t.schema]);
  // Checked first so a role without CREATE on the database can use a schema made for it.
  if (rows.length === 0) await db.query(`CREATE SCHEMA "${t.schema}"`);
  await db.query(
    `CREATE TABLE IF NOT EXISTS ${t.migrations} (
       version integer PRIMARY KEY,
       description text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now()
     )`,
  );
}

/** Reads the applied schema version; 0 when the schema or its version table does not exist. */
export async function readSchemaVersion(db: Queryable, t: Tables): Promise<number> {
  const { rows } = await db.query<{ present: boolean }>(
    "SELECT to_regclass($1) IS NOT NULL AS present",
    [t.migrations],
  );
  if (!rows[0]?.present) return 0;
  const r = await db.query<{ v: number }>(
    `SELECT COALESCE(MAX(version), 0)::integer AS v FROM ${t.migrations}`,
  );
  return r.rows[0]?.v ?? 0;
}

/**
 * Brings the schema to `target`, one transaction per step, each under the schema's advisory
 * migration lock (re-reading the version inside the lock).
 *
 * @throws SchemaTooNewError when the database is at a version newer than this build knows.
 */
export async function migrate(db: Db, t: Tables, target = POSTGRES_SCHEMA_VERSION): Promise<void> {
  // Fast path: a started fleet re-opening an up-to-date schema takes no lock.
  const current = await readSchemaVersion(db, t);
  if (current > POSTGRES_SCHEMA_VERSION)
    throw new SchemaTooNewError(current, POSTGRES_SCHEMA_VERSION);
  const steps = POSTGRES_MIGRATIONS.filter((m) => m.version > current && m.version <= target);
  for (const step of steps) {
    await db.tx(async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${lockKeys.migrate(t.schema)})`);
      await bootstrap(client, t);
      const version = await readSchemaVersion(client, t);
      if (version > POSTGRES_SCHEMA_VERSION)
        throw new SchemaTooNewError(version, POSTGRES_SCHEMA_VERSION);
      if (version >= step.version) return;
      await client.query(step.sql(t));
      await client.query(`INSERT INTO ${t.migrations} (version, description) VALUES ($1, $2)`, [
        step.version,
        step.description,
      ]);
    });
  }
}
