/**
 * Forward-only schema migrations of the SQLite store. The version lives in `PRAGMA user_version`;
 * opening a file at an older version applies the missing steps in one transaction each.
 * Never edit a shipped step: add a new one.
 *
 * @module
 */

/** One schema step: `version` is the version after it ran. */
export type SqliteMigration = { version: number; description: string; sql: string };

/** Every migration, in order. */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    description: "send intents, outbound receipt registry, inbound dedupe, watermarks",
    sql: `
      CREATE TABLE intents (
        id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL UNIQUE,
        idempotency_key TEXT NOT NULL UNIQUE,
        channel TEXT NOT NULL,
        account_id TEXT,
        ordering_key TEXT NOT NULL,
        status TEXT NOT NULL,
        attempt INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        lease_owner TEXT,
        lease_expires_at INTEGER,
        turn_id TEXT,
        message_json TEXT NOT NULL,
        operation_json TEXT NOT NULL,
        batch_json TEXT,
        live_state_json TEXT,
        receipt_json TEXT,
        partial_receipt_json TEXT,
        failure_json TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX intents_status_seq ON intents(status, seq);
      CREATE INDEX intents_unsent_by_key ON intents(ordering_key, seq)
        WHERE status IN ('pending','sending','committing','unknown_after_send');
      CREATE INDEX intents_terminal_updated ON intents(updated_at)
        WHERE status IN ('sent','failed','cancelled');

      CREATE TABLE receipts (
        channel TEXT NOT NULL,
        account_id TEXT NOT NULL DEFAULT '',
        platform_message_id TEXT NOT NULL,
        intent_id TEXT NOT NULL REFERENCES intents(id) ON DELETE CASCADE,
        part_index INTEGER NOT NULL,
        recorded_at INTEGER NOT NULL,
        PRIMARY KEY (channel, account_id, platform_message_id)
      ) STRICT;
      CREATE INDEX receipts_intent ON receipts(intent_id);

      CREATE TABLE dedupe (
        channel TEXT NOT NULL,
        account_id TEXT NOT NULL DEFAULT '',
        event_id TEXT NOT NULL,
        status TEXT NOT NULL,
        owner TEXT,
        lease_expires_at INTEGER,
        expires_at INTEGER,
        meta_json TEXT,
        PRIMARY KEY (channel, account_id, event_id)
      ) STRICT;
      CREATE INDEX dedupe_expiry ON dedupe(expires_at) WHERE status = 'done';

      CREATE TABLE watermarks (
        channel TEXT NOT NULL,
        account_id TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL DEFAULT '',
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (channel, account_id, source)
      ) STRICT;
    `,
  },
  {
    version: 2,
    description: "due-time index, turn ledger, dead letters",
    sql: `
      ALTER TABLE intents ADD COLUMN due_at INTEGER;
      UPDATE intents SET due_at = COALESCE(next_attempt_at, created_at);
      CREATE INDEX intents_due ON intents(status, due_at, seq);

      CREATE TABLE ledger (
        conversation TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        turn_id TEXT,
        at INTEGER NOT NULL,
        data_json TEXT,
        PRIMARY KEY (conversation, seq)
      ) STRICT;
      CREATE INDEX ledger_turn ON ledger(turn_id) WHERE turn_id IS NOT NULL;

      CREATE TABLE dead_letters (
        id TEXT PRIMARY KEY,
        channel TEXT NOT NULL,
        account_id TEXT,
        raw_json TEXT NOT NULL,
        error_json TEXT NOT NULL,
        status TEXT NOT NULL,
        received_at INTEGER NOT NULL,
        replayed_at INTEGER,
        replay_count INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX dead_letters_status ON dead_letters(status, received_at);
    `,
  },
  {
    version: 3,
    description: "per-unit first dispatch time (idempotency windows)",
    sql: `
      ALTER TABLE intents ADD COLUMN first_dispatch_json TEXT;
    `,
  },
  {
    version: 4,
    description: "expired intents (maxAgeMs), recovery that reads only what it may repair",
    // [H25]: 'expired' is terminal: the terminal index (purge, rate-limit seed) lists it. The
    // recovery pass reads leased unsent intents through intents_leased (only the intents
    // leased right now, not the backlog) and skewed ones through intents_due.
    sql: `
      ALTER TABLE intents ADD COLUMN expires_at INTEGER;
      DROP INDEX intents_terminal_updated;
      CREATE INDEX intents_terminal_updated ON intents(updated_at)
        WHERE status IN ('sent','failed','cancelled','expired');
      CREATE INDEX intents_leased ON intents(seq)
        WHERE lease_owner IS NOT NULL AND status IN ('pending','unknown_after_send');
    `,
  },
];

/** The newest schema version this build knows. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS.at(-1)?.version ?? 0;
