/**
 * Group commit for the SQLite store ([H19] item 1): every write operation called in the same
 * event-loop tick runs inside one `BEGIN IMMEDIATE … COMMIT`, so 32 concurrent sends pay one
 * fsync (and one lock round) per tick instead of one each.
 *
 * Rules, each one tested in `GroupCommit.test.ts`:
 * - **Durability unchanged.** No member's promise settles before `COMMIT` returned: a caller
 *   that saw a result knows its rows are on disk (with `synchronous = FULL`).
 * - **Members are isolated.** Each member runs inside its own `SAVEPOINT`; one that throws (an
 *   `IntentConflictError`, a constraint violation, a failpoint) is rolled back to it and
 *   rejected alone — the others commit.
 * - **A failed group fails every member.** When `COMMIT` fails (disk full, I/O error) or SQLite
 *   aborted the whole transaction, nothing is applied and every member rejects with
 *   `StoreUnavailableError` naming its own operation.
 * - **Lock waits stay off the event loop.** Another process holding the write lock makes the
 *   whole group wait with an async backoff (nothing applied yet), up to `busyTimeoutMs`.
 * - **Call order.** Members run in the order they were called; a later member sees an earlier
 *   one's writes. Groups run one at a time.
 * - **Bounded.** A group stops taking members after `maxMembers` or `maxGroupMs` of work so a
 *   burst cannot hold the event loop for long; the rest go into the next group. Unless set, the
 *   work budget follows the disk: twice the recent `COMMIT` time, between 2 and 4 ms (a fast
 *   fsync gets short groups, so the loop is held less; a slow one longer groups, so its cost is
 *   shared by more members).
 *
 * @module
 */
// The module's own setImmediate: test suites that fake the global timers do not stall writes.
import { setImmediate } from "node:timers";
import { HeraldError } from "../../errors.ts";
import { failpoint } from "../../failpoint.ts";
import { sleep } from "../../sleep.ts";
import { StoreUnavailableError } from "../errors.ts";

/** SQLITE_BUSY (5) or SQLITE_LOCKED (6), extended codes included. */
export function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" && ((code & 0xff) === 5 || (code & 0xff) === 6);
}

/** What the group committer needs of the connection. */
export type GroupDb = {
  exec(sql: string): void;
  /** Prepares a statement (the member savepoints run prepared: no parse per member). */
  prepare?(sql: string): { run(): unknown };
  readonly isTransaction: boolean;
};

/**
 * The default work budget of a group, ms: twice the recent `COMMIT` time, between 2 and 4. A
 * fast fsync gets short groups (the event loop is held less, at the cost of a cheap commit more);
 * a slow one longer groups (its cost is shared by more members).
 * @param commitMs - moving average of a `COMMIT`'s time, ms.
 */
export function defaultGroupBudgetMs(commitMs: number): number {
  return Math.min(4, Math.max(2, 2 * commitMs));
}

/** Options of {@link GroupCommit}. */
export type GroupCommitOptions = {
  /** Longest wait for another process's write lock, ms. */
  busyTimeoutMs: number;
  /** Most members in one transaction. @defaultValue 256 */
  maxMembers?: number;
  /**
   * Work time after which a group takes no more members, ms.
   * @defaultValue twice the recent `COMMIT` time (a moving average), between 2 and 4
   */
  maxGroupMs?: number;
  /** True once the store is closed: queued members then reject. */
  closed(): boolean;
  /**
   * The clock a group's work time and a `COMMIT`'s time are read from, in ms (tests give a
   * virtual one: preemption on a busy machine then does not count as work).
   * @defaultValue performance.now
   */
  now?: () => number;
};

type Member = {
  operation: string;
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Thrown inside a group to abort it and wait for the lock (never escapes). */
class BusyAbort extends Error {
  constructor(cause: unknown) {
    super("busy", { cause });
  }
}

/** Queues write operations and commits each tick's operations in one transaction. */
export class GroupCommit {
  readonly #db: GroupDb;
  readonly #options: Required<Omit<GroupCommitOptions, "closed" | "maxGroupMs" | "now">> &
    Pick<GroupCommitOptions, "closed" | "maxGroupMs">;
  readonly #now: () => number;
  /** Moving average of a `COMMIT`'s time, ms (the default work budget follows it). */
  #commitMs = 1;
  #queue: Member[] = [];
  #scheduled = false;
  #running: Promise<void> | undefined;
  /** Transactions committed and members they carried (for the bench and tests). */
  readonly stats = { groups: 0, members: 0 };

  /** Opens and releases a member's savepoint (prepared once when the connection can). */
  readonly #savepoint: { open(): void; release(): void };

  constructor(db: GroupDb, options: GroupCommitOptions) {
    this.#db = db;
    const { now, ...rest } = options;
    this.#options = { maxMembers: 256, ...rest };
    this.#now = now ?? (() => performance.now());
    const open = db.prepare?.("SAVEPOINT herald_member");
    const release = db.prepare?.("RELEASE herald_member");
    this.#savepoint =
      open && release
        ? { open: () => open.run(), release: () => release.run() }
        : {
            open: () => db.exec("SAVEPOINT herald_member"),
            release: () => db.exec("RELEASE herald_member"),
          };
  }

  /**
   * Runs `fn` as one member of the next group; settles after the group's `COMMIT`.
   * @param operation - the store method's name, for error messages.
   */
  run<T>(operation: string, fn: () => T): Promise<T> {
    if (this.#options.closed()) {
      return Promise.reject(new StoreUnavailableError(operation, new Error("store is closed")));
    }
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ operation, fn, resolve: resolve as (v: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Resolves once every queued member has settled. */
  async drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#running || this.#scheduled) {
      await (this.#running ?? new Promise<void>((r) => setImmediate(r)));
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#running) return;
    this.#scheduled = true;
    // setImmediate, not a microtask: the continuations of the last group's members (each
    // several promise hops deep) all get to issue their next write before this group starts.
    setImmediate(() => {
      this.#scheduled = false;
      this.#running = this.#drainQueue().finally(() => {
        this.#running = undefined;
        if (this.#queue.length > 0) this.#schedule();
      });
    });
  }

  async #drainQueue(): Promise<void> {
    while (this.#queue.length > 0) {
      const group = this.#queue;
      this.#queue = [];
      await this.#commit(group);
      // What did not fit is at the front of the queue again; let I/O run before the next group.
      if (this.#queue.length > 0) await new Promise<void>((r) => setImmediate(r));
    }
  }

  /** Runs a group until it committed, failed, or the lock wait timed out. */
  async #commit(group: Member[]): Promise<void> {
    const deadline = Date.now() + this.#options.busyTimeoutMs;
    for (let tries = 0; ; tries++) {
      if (this.#options.closed()) {
        for (const m of group) {
          m.reject(new StoreUnavailableError(m.operation, new Error("store is closed")));
        }
        return;
      }
      let outcomes: Outcome[];
      try {
        outcomes = this.#attempt(group);
      } catch (error) {
        const cause = error instanceof BusyAbort ? error.cause : error;
        if (isBusy(cause) && Date.now() < deadline) {
          await sleep(
            Math.min(5 * 2 ** Math.min(tries, 4), 50, Math.max(1, deadline - Date.now())),
          );
          continue;
        }
        for (const m of group) m.reject(new StoreUnavailableError(m.operation, cause));
        return;
      }
      this.stats.groups++;
      this.stats.members += outcomes.length;
      // Members past the time budget did not run: they go first into the next group.
      if (outcomes.length < group.length) this.#queue.unshift(...group.slice(outcomes.length));
      for (const [i, o] of outcomes.entries()) {
        const m = group[i] as Member;
        if (o.ok) m.resolve(o.value);
        else m.reject(o.error);
      }
      return;
    }
  }

  /**
   * One try: BEGIN, each member in its savepoint, COMMIT. Synchronous, so nothing else runs on
   * the connection meanwhile.
   * @returns the outcome of each member that ran (a prefix of `group`).
   * @throws BusyAbort or the BEGIN/COMMIT error when the whole group failed (rolled back).
   */
  #attempt(group: Member[]): Outcome[] {
    const db = this.#db;
    db.exec("BEGIN IMMEDIATE");
    const outcomes: Outcome[] = [];
    const started = this.#now();
    const budgetMs = this.#options.maxGroupMs ?? defaultGroupBudgetMs(this.#commitMs);
    try {
      for (const m of group) {
        if (
          outcomes.length >= this.#options.maxMembers ||
          (outcomes.length > 0 && this.#now() - started > budgetMs)
        ) {
          break;
        }
        // A group of one needs no savepoint: the transaction is the member's.
        const savepoint = group.length > 1;
        if (savepoint) this.#savepoint.open();
        try {
          const value = m.fn();
          if (savepoint) this.#savepoint.release();
          outcomes.push({ ok: true, value });
        } catch (error) {
          // SQLite rolled the whole transaction back by itself (SQLITE_FULL, IOERR, …): the
          // members before this one are undone too, so the group fails as a whole.
          if (!db.isTransaction) throw error;
          if (savepoint) {
            db.exec("ROLLBACK TO herald_member");
            db.exec("RELEASE herald_member");
          } else if (!isBusy(error)) {
            db.exec("ROLLBACK");
            return [
              {
                ok: false,
                error:
                  error instanceof HeraldError
                    ? error
                    : new StoreUnavailableError(m.operation, error),
              },
            ];
          }
          if (isBusy(error)) throw new BusyAbort(error);
          outcomes.push({
            ok: false,
            error:
              error instanceof HeraldError ? error : new StoreUnavailableError(m.operation, error),
          });
        }
      }
      const committing = this.#now();
      // Tests arm `delay:<ms>` here to stand for a slow disk (a long fsync in COMMIT).
      failpoint("store.commit");
      db.exec("COMMIT");
      this.#commitMs = this.#commitMs * 0.8 + (this.#now() - committing) * 0.2;
      return outcomes;
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      throw error;
    }
  }
}
