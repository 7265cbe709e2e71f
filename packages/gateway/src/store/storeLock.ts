/**
 * One gateway per SQLite file: a gateway holds an exclusive SQLite lock on `<file>.gateway-lock`
 * for as long as it runs, so a second gateway (another `herald start`, `herald()` or
 * `herald demo`) on the same file is refused at open instead of contending for the write lock.
 * The operating system drops the lock when the process exits, also on SIGKILL, so a crashed
 * gateway never leaves a stale lock behind. CLI readers (`herald queue ls`, `doctor`) take no
 * lock and work beside a running gateway.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { HeraldError } from "@herald/core";
import { docsLink } from "../docsLinks.ts";

/** Another gateway already has this SQLite state file open. Nothing was changed. */
export class StoreLockedError extends HeraldError {
  /** The state file (absolute path). */
  readonly file: string;
  constructor(file: string) {
    super(
      "HERALD_STORE_LOCKED",
      `${file} is in use by another herald gateway (herald start, herald() or herald demo) — two gateways on one SQLite file would contend for its write lock.\n` +
        "    fix: stop the other gateway first, or give this one its own file (store.sqlite.path); " +
        `several gateway processes need PostgreSQL (${docsLink("scaling")}). ` +
        "The CLI (herald queue ls, doctor) can read a store in use.",
    );
    this.file = file;
  }
}

/** The path of the lock file of a state file. */
export function lockPathOf(file: string): string {
  return `${file}.gateway-lock`;
}

/** A held lock; `release()` is idempotent. */
export type StoreLock = { readonly path: string; release(): void };

/**
 * Takes the gateway lock of state file `file` (absolute path).
 *
 * @throws {@link StoreLockedError} when another gateway, in this process or another one, holds it.
 */
export function acquireStoreLock(file: string): StoreLock {
  const path = lockPathOf(file);
  const db = new DatabaseSync(path, { timeout: 0 });
  try {
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    db.close();
    if ((error as { errcode?: number }).errcode === 5) throw new StoreLockedError(file);
    throw error;
  }
  let held = true;
  return {
    path,
    release() {
      if (!held) return;
      held = false;
      db.close();
    },
  };
}
