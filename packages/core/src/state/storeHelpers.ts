/**
 * Helpers for SQL implementations of {@link MessageStateStore} (SQLite here,
 * `@herald/store-postgres`, third-party stores): one place that says which columns a patch
 * writes and which platform ids an intent contributes to the outbound registry.
 *
 * @module
 */
import type { DurableSendIntent, IntentOperation } from "../message/intent.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { ReceiptConflictError } from "./errors.ts";
import type { IntentPatch } from "./types.ts";

/** Names of an intents table's JSON columns (they differ per store: `failure_json` vs `failure`). */
export type IntentJsonColumns = {
  failure: string;
  receipt: string;
  partialReceipt: string;
  liveState: string;
  batch: string;
  firstDispatchAt: string;
};

/**
 * Column assignments for an {@link IntentPatch}: keys are column names, values are driver
 * parameters (JSON columns get serialized text, `null` clears). `due_at` follows
 * `next_attempt_at` (cleared → due since creation); `lease: "release"` clears the lease.
 */
export function patchColumns(
  patch: IntentPatch,
  current: Pick<DurableSendIntent, "createdAt">,
  json: IntentJsonColumns,
): Record<string, string | number | null> {
  const text = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  const cols: Record<string, string | number | null> = {};
  if (patch.attempt !== undefined) cols.attempt = patch.attempt;
  if (patch.nextAttemptAt !== undefined) {
    cols.next_attempt_at = patch.nextAttemptAt;
    cols.due_at = patch.nextAttemptAt ?? current.createdAt;
  }
  if (patch.failure !== undefined) cols[json.failure] = text(patch.failure);
  if (patch.receipt !== undefined) cols[json.receipt] = text(patch.receipt);
  if (patch.partialReceipt !== undefined) cols[json.partialReceipt] = text(patch.partialReceipt);
  if (patch.liveState !== undefined) cols[json.liveState] = text(patch.liveState);
  if (patch.batch !== undefined) cols[json.batch] = text(patch.batch);
  if (patch.firstDispatchAt !== undefined) {
    cols[json.firstDispatchAt] = text(patch.firstDispatchAt);
  }
  if (patch.expiresAt !== undefined) cols.expires_at = patch.expiresAt;
  if (patch.lease === "release") {
    cols.lease_owner = null;
    cols.lease_expires_at = null;
  } else if (patch.lease) {
    cols.lease_owner = patch.lease.owner;
    cols.lease_expires_at = patch.lease.expiresAt;
  }
  return cols;
}

/**
 * The platform message ids an intent adds to the outbound registry (its receipt and partial
 * receipt), each with the unit index of its part (-1 for an id listed without a part).
 */
export function registryEntries(
  intent: Pick<DurableSendIntent, "receipt" | "partialReceipt">,
): Array<{ platformMessageId: string; partIndex: number }> {
  const entries = new Map<string, number>();
  for (const r of [intent.partialReceipt, intent.receipt]) {
    if (!r) continue;
    for (const part of r.parts) entries.set(part.platformMessageId, part.index);
    for (const id of r.platformMessageIds) if (!entries.has(id)) entries.set(id, -1);
  }
  return [...entries].map(([platformMessageId, partIndex]) => ({ platformMessageId, partIndex }));
}

/** One platform id an intent writes to the outbound registry, and how it may be held. */
export type RegistryClaim = {
  platformMessageId: string;
  /** Unit index of the part (-1 for an id listed without a part). */
  partIndex: number;
  /**
   * True when the id may already be held by another intent: a message this intent edits or
   * deletes (`operation.receipt`), or one it adopts (`IntentPatch.adoptedMessageIds`). Such an
   * id is indexed only when nobody holds it; any other id held by another intent is a
   * {@link ReceiptConflictError}.
   */
  shared: boolean;
};

/** The platform ids of the messages an edit or delete targets (none for a send). */
export function targetMessageIds(operation: IntentOperation | undefined): Set<string> {
  const ids = new Set<string>();
  if (!operation || operation.kind === "send" || operation.kind === "reaction") return ids;
  for (const id of operation.receipt.platformMessageIds) ids.add(id);
  for (const part of operation.receipt.parts) ids.add(part.platformMessageId);
  return ids;
}

/** One platform id a patch's receipts carry (see {@link patchClaims}). */
export type PatchClaim = {
  platformMessageId: string;
  /** Unit index of the part (-1 for an id listed without a part). */
  partIndex: number;
  /** Listed in `IntentPatch.adoptedMessageIds`. */
  adopted: boolean;
};

/**
 * The platform ids of the receipt and partial receipt `patch` writes, each once with its unit
 * index (ids `""` — a platform that answered without one, CASES C12 — claim nothing), and the
 * first id two units of them carry, when one does (the platform answered a later unit with an
 * earlier one's message: its text never showed). Stores that read the row only in SQL use this
 * and check the targets there; others use {@link registryClaims}.
 */
export function patchClaims(
  patch: Pick<IntentPatch, "receipt" | "partialReceipt" | "adoptedMessageIds">,
): {
  claims: PatchClaim[];
  duplicate?: { platformMessageId: string; partIndex: number; heldByPartIndex: number };
} {
  const written: MessageReceipt[] = [];
  if (patch.partialReceipt) written.push(patch.partialReceipt);
  if (patch.receipt) written.push(patch.receipt);
  const adopted = new Set(patch.adoptedMessageIds ?? []);
  const claims = new Map<string, PatchClaim>();
  let duplicate:
    | { platformMessageId: string; partIndex: number; heldByPartIndex: number }
    | undefined;
  for (const r of written) {
    for (const part of r.parts) {
      const id = part.platformMessageId;
      if (id === "") continue;
      const seen = claims.get(id);
      if (seen && seen.partIndex !== part.index && !duplicate) {
        duplicate = {
          platformMessageId: id,
          partIndex: Math.max(seen.partIndex, part.index),
          heldByPartIndex: Math.min(seen.partIndex, part.index),
        };
      }
      claims.set(id, { platformMessageId: id, partIndex: part.index, adopted: adopted.has(id) });
    }
  }
  for (const r of written) {
    for (const id of r.platformMessageIds) {
      if (id === "" || claims.has(id)) continue;
      claims.set(id, { platformMessageId: id, partIndex: -1, adopted: adopted.has(id) });
    }
  }
  return { claims: [...claims.values()], ...(duplicate ? { duplicate } : {}) };
}

/**
 * The registry rows a write of `patch` to `intent` claims (DESIGN §12 "Receipt ids are unique"):
 * {@link patchClaims}, each marked whether another intent may hold it
 * ({@link RegistryClaim.shared}: a target of the intent's edit or delete, or adopted).
 *
 * @throws ReceiptConflictError when two units of the written receipts carry one id.
 */
export function registryClaims(
  intent: Pick<DurableSendIntent, "id" | "channel" | "accountId"> & {
    operation?: IntentOperation | undefined;
  },
  patch: Pick<IntentPatch, "receipt" | "partialReceipt" | "adoptedMessageIds">,
): RegistryClaim[] {
  const { claims, duplicate } = patchClaims(patch);
  if (duplicate) {
    throw new ReceiptConflictError({
      intentId: intent.id,
      channel: intent.channel,
      accountId: intent.accountId,
      ...duplicate,
      heldByIntentId: intent.id,
    });
  }
  const targets = targetMessageIds(intent.operation);
  return claims.map((c) => ({
    platformMessageId: c.platformMessageId,
    partIndex: c.partIndex,
    shared: c.adopted || targets.has(c.platformMessageId),
  }));
}

/**
 * Drops keys whose value is undefined, so a row mapped to a domain object has no
 * `undefined`-valued optional fields (`exactOptionalPropertyTypes`). Returns `value` itself when
 * no key is undefined, otherwise a copy without them (`value` is left as it was: deleting keys
 * would turn it into a slow dictionary object, and this runs for every row a store maps). Use
 * the return value.
 */
export function compact<T extends object>(value: T): T {
  const keys = Object.keys(value) as Array<keyof T>;
  if (!keys.some((key) => value[key] === undefined)) return value;
  const out = {} as T;
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key];
  return out;
}
