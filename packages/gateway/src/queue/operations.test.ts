/**
 * [H28] C48: one rule for what an operator may do to an intent — core's status machine
 * (`allowedOperations`) — and every surface offers exactly that: `herald queue retry|cancel`
 * (ids and `--all <status>`), the console's buttons, and the table in docs/console.md. A failed
 * intent can be closed for good.
 */
import { readFileSync } from "node:fs";
import {
  allowedOperations,
  type DurableSendIntent,
  INTENT_STATUSES,
  type IntentStatus,
  OPERATOR_ACTIONS,
  SqliteStateStore,
  statusesAllowing,
} from "@herald/core";
import { newIntent, textReceipt } from "@herald/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { allStatus, queueAct } from "../cli/commands/queue.ts";
import { intentActions } from "../console/queueView.ts";

let store: SqliteStateStore;
beforeEach(() => {
  store = new SqliteStateStore({ path: ":memory:" });
});
afterEach(async () => {
  await store.close();
});

/** The legal path from `pending` to each status. */
const PATHS: Record<IntentStatus, IntentStatus[]> = {
  pending: [],
  sending: ["sending"],
  committing: ["sending", "committing"],
  unknown_after_send: ["sending", "unknown_after_send"],
  sent: ["sending", "committing", "sent"],
  failed: ["failed"],
  cancelled: ["cancelled"],
  expired: ["expired"],
};

/** A stored intent in `status`, reached through legal transitions. */
async function intentIn(status: IntentStatus): Promise<DurableSendIntent> {
  const [enqueued] = await store.enqueueIntents([newIntent()]);
  let intent = enqueued?.intent as DurableSendIntent;
  for (const to of PATHS[status]) {
    const patch =
      to === "committing"
        ? { receipt: textReceipt([`p-${intent.id}`]) } // a message id is one intent's receipt
        : to === "failed"
          ? { failure: { kind: "permission", evidence: "not_dispatched", message: "403" } as const }
          : {};
    [intent] = (await store.transitionIntents([
      { id: intent.id, from: intent.status, to, patch },
    ])) as [DurableSendIntent];
  }
  return intent;
}

/** The actions the docs table (docs/console.md, "Queue inspector") lists for each status. */
function docsTable(): Record<string, string[]> {
  const doc = readFileSync(new URL("../../../../docs/console.md", import.meta.url), "utf8");
  const offered: Record<string, string[]> = {};
  for (const line of doc.split("\n")) {
    const row = /^\|\s*(Retry|Cancel)\s*\|([^|]*)\|/.exec(line);
    if (!row) continue;
    for (const [, status = ""] of (row[2] ?? "").matchAll(/`([a-z_]+)`/g)) {
      offered[status] = [...(offered[status] ?? []), (row[1] ?? "").toLowerCase()];
    }
  }
  return offered;
}

describe("operator actions, one rule on every surface (C48)", () => {
  it("closes a failed intent for good from herald queue cancel", async () => {
    const failed = await intentIn("failed");
    const result = await queueAct(store, "cancel", [failed.id]);
    expect(result).toEqual({ changed: [failed.id], skipped: [] });
    expect((await store.getIntent(failed.id))?.status).toBe("cancelled");
  });

  it.each(INTENT_STATUSES)(
    "offers from %s exactly what the status machine allows",
    async (status) => {
      const allowed = allowedOperations(status);
      // The console's buttons.
      const page = String(intentActions({ base: "/console", csrf: "t" }, await intentIn(status)));
      const buttons = [...page.matchAll(/data-action="(\w+)"/g)].map((m) => m[1]);
      expect(buttons).toEqual([...allowed]);
      for (const action of OPERATOR_ACTIONS) {
        const offered = allowed.includes(action);
        // `herald queue <action> --all <status>`.
        if (offered) expect(allStatus(action, status)).toBe(status);
        else expect(() => allStatus(action, status)).toThrow(/--all must be one of/);
        // `herald queue <action> <id>` (a fresh intent per action: the first may have moved it).
        const intent = await intentIn(status);
        const result = await queueAct(store, action, [intent.id]);
        expect(result.changed).toEqual(offered ? [intent.id] : []);
        expect((await store.getIntent(intent.id))?.status).toBe(
          offered ? (action === "retry" ? "pending" : "cancelled") : status,
        );
      }
      // The table of docs/console.md.
      expect(docsTable()[status] ?? []).toEqual([...allowed]);
    },
  );

  it("lists in the CLI's --all error exactly the statuses the machine allows", () => {
    expect(() => allStatus("cancel", "sent")).toThrow(
      `--all must be one of ${statusesAllowing("cancel").join(", ")}`,
    );
  });
});
