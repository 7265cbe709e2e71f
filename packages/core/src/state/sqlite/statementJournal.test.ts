/**
 * [H19]: a group commit writes its pages to the WAL and nowhere else. Each member runs in its
 * own SAVEPOINT, and SQLite keeps the pages a savepoint may have to restore in a statement
 * journal, which spills to a temporary file once it passes 64 KiB unless `temp_store` is
 * MEMORY. Measured with the calling thread's own write counter (`/proc/thread-self/io`,
 * `wchar`: bytes handed to write calls), so other test files running meanwhile do not count.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { newIntent, outboundMessage } from "../../testing/fixtures.ts";
import { SqliteStateStore } from "./SqliteStateStore.ts";

const IO = "/proc/thread-self/io";
const written = () => Number(/^wchar: (\d+)$/m.exec(readFileSync(IO, "utf8"))?.[1]);

const dir = mkdtempSync(join(tmpdir(), "herald-sqlite-stmtjournal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(existsSync(IO))("SqliteStateStore group commit writes", () => {
  it("a group whose members rewrite many of each other's pages writes only its WAL frames", async () => {
    const path = join(dir, "store.db");
    // One group however slow the machine (a group otherwise stops taking members after 4 ms).
    const store = new SqliteStateStore({ path, groupCommit: { maxGroupMs: 60_000 } });
    const owner = "w";
    const inputs = Array.from({ length: 200 }, (_, i) =>
      newIntent(outboundMessage(`m${i}`, { target: { id: `c${i}` } }), { id: randomUUID() }),
    );
    await store.enqueueIntents([newIntent()]); // the WAL exists
    const walBefore = statSync(`${path}-wal`).size;
    const before = written();
    // One tick, so one group: an enqueue of 200 rows, then a lease rewriting them all (its
    // savepoint has to keep the ~40 pages the enqueue changed: past 64 KiB), then one member
    // per intent, each in its savepoint.
    const enqueued = store.enqueueIntents(inputs);
    const leased = store.leaseDueIntents({ owner, now: Date.now(), leaseMs: 60_000, limit: 201 });
    const ids = inputs.map((i) => String(i.id));
    const sending = ids.map((id) =>
      store.transitionIntents([
        { id, owner, from: "pending", to: "sending", patch: { attempt: 1 } },
      ]),
    );
    const groupsBefore = store.groupCommitStats.groups;
    await enqueued;
    expect((await leased).length).toBe(201);
    const sent = (await Promise.all(sending)).flat();
    const bytes = written() - before;
    const wal = statSync(`${path}-wal`).size - walBefore;
    expect(sent.map((i) => i.status)).toEqual(Array(200).fill("sending"));
    expect(store.groupCommitStats.groups - groupsBefore).toBe(1);
    // Far from the 1,000-page auto-checkpoint: the WAL only grew, by this group's frames.
    expect(wal).toBeGreaterThan(0);
    // The WAL frames and a few header bytes (140,088 bytes written for 140,080 of WAL when
    // measured); with the journal spilled to a temporary file, 4.3 MB.
    expect(bytes).toBeLessThan(wal + 4_096);
    await store.close();
  });
});
