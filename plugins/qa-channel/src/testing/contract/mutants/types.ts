/**
 * The shape of a mutant: one deliberate bug in an adapter, its receiver, or core (behind a
 * test-only switch), and the contract test that must catch it.
 *
 * @module
 */
import type {
  ChannelMessageAdapter,
  ChannelReceiverSink,
} from "@herald/plugin-sdk/channel-message";
import type { CoreMutation } from "@herald/plugin-sdk/testing";
import type { JsonValue } from "../types.ts";

/** The kinds of fault the catalog covers ([H16] item 1). */
export type MutantKind =
  | "receipts"
  | "classification"
  | "idempotency-key"
  | "origin"
  | "chunk-limit"
  | "edit-target"
  | "preview-cleanup"
  | "not-modified"
  | "thread-reply"
  | "watermark"
  | "dedupe"
  | "swallowed-errors"
  | "typing"
  | "rate-limit-scope"
  | "reconcile"
  | "echo"
  /** [H23] features beyond text. */
  | "reactions"
  | "direct-messages"
  | "files"
  | "actions"
  | "ephemeral"
  | "history";

/** One mutant of the catalog. */
export type Mutant = {
  /** Stable id, `kind.what` in kebab case, e.g. `classify.400-transient`. */
  id: string;
  kind: MutantKind;
  /** The bug, in one sentence. */
  description: string;
  /** Id of the contract test that must fail against this mutant (e.g. `batch.receipts`). */
  killedBy: string;
  /**
   * The killing test is not in the suite yet: the mutant is listed in the printed summary as
   * awaiting it, not run, and **not counted as killed**. Says who is writing it.
   */
  awaiting?: string;
  /** Rewrites the real adapter (built for `connection`) into the mutant. */
  adapter?(adapter: ChannelMessageAdapter, connection: JsonValue): ChannelMessageAdapter;
  /** Rewrites the sink the real receiver delivers into. */
  sink?(sink: ChannelReceiverSink): ChannelReceiverSink;
  /** Core mutations switched on while the mutant runs (test-only switches in `@herald/core`). */
  core?: readonly CoreMutation[];
};
