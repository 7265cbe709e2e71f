/**
 * Typed non-message events (DESIGN §5): `normalize` may return a `member_joined`,
 * `message_deleted`, … event instead of a message. It is deduped by its id under the same
 * lease as messages, handed to the event handler, and never starts a turn.
 *
 * @module
 */

import { asError, describeError } from "../context/errorInfo.ts";
import type { HeraldLogger } from "../logger.ts";
import type { ReceiveAckPolicy } from "../message/policy.ts";
import type { DedupeKey } from "../state/types.ts";
import type { AckGate } from "./ack.ts";
import type { DedupeLeases } from "./DedupeLeases.ts";
import { dedupeKeyString } from "./inflight.ts";
import type { AcceptedEvent, AcceptedInteraction } from "./intake.ts";
import type {
  ReceiveActionHandler,
  ReceiveEventHandler,
  ReceiveOutcome,
  ReceiveReactionHandler,
} from "./types.ts";

/** What {@link processEvent} needs from the runtime. */
export type EventDeps = {
  leases: DedupeLeases;
  log: HeraldLogger;
  clock: () => number;
  handler: () => ReceiveEventHandler | undefined;
  reactionHandler?: () => ReceiveReactionHandler | undefined;
  actionHandler?: () => ReceiveActionHandler | undefined;
};

/**
 * Dedupe lease → handler → `done`. Acks at once under an `immediate` policy, else once the
 * handler returned; a throwing handler releases the lease (the platform is asked to redeliver).
 */
export async function processEvent(
  input: AcceptedEvent,
  policy: ReceiveAckPolicy | undefined,
  ack: AckGate,
  deps: EventDeps,
): Promise<ReceiveOutcome> {
  const { key, event } = input;
  const got = await deps.leases.acquire(key);
  if (got.status === "in_flight")
    return { status: "busy", key, retryAfterMs: Math.max(0, got.leaseExpiresAt - deps.clock()) };
  if (got.status === "done") return { status: "duplicate", key };
  if (policy?.kind === "immediate") ack.accept();
  const log = deps.log.child({ event: event.type, key });
  try {
    const handler = deps.handler();
    if (handler) await handler(event, { dedupeKey: key, log });
    else log.debug({}, "no event handler: event acked");
    await deps.leases.complete(key, { outcome: "event", type: event.type });
    return { status: "event", key, event };
  } catch (error) {
    await deps.leases.release(key);
    log.error({ error: describeError(error) }, "event handler failed: lease released");
    return { status: "failed", error: asError(error), key, acked: ack.answered, recorded: false };
  }
}

/**
 * A reaction or button click ([H23]): the same dedupe lease as messages and events → its
 * handler once → `done`. Acks at once under an `immediate` policy (the platform's own ack of a
 * click was already sent by the receiver), else once the handler returned; a throwing handler
 * releases the lease so a redelivery runs it again.
 */
export async function processInteraction(
  input: AcceptedInteraction,
  policy: ReceiveAckPolicy | undefined,
  ack: AckGate,
  deps: EventDeps,
): Promise<ReceiveOutcome> {
  const { key, interaction } = input;
  const got = await deps.leases.acquire(key);
  if (got.status === "in_flight")
    return { status: "busy", key, retryAfterMs: Math.max(0, got.leaseExpiresAt - deps.clock()) };
  if (got.status === "done") return { status: "duplicate", key };
  if (policy?.kind === "immediate") ack.accept();
  const log = deps.log.child({ interaction: interaction.kind, key });
  try {
    if (interaction.kind === "reaction") {
      const handler = deps.reactionHandler?.();
      if (handler) await handler(interaction, { dedupeKey: key, log });
      else log.debug({}, "no reaction handler: reaction acked");
    } else {
      const handler = deps.actionHandler?.();
      if (handler) await handler(interaction, { dedupeKey: key, log });
      else log.debug({}, "no action handler: click acked");
    }
    await deps.leases.complete(key, { outcome: "event", type: interaction.kind });
    return { status: "interaction", key, interaction };
  } catch (error) {
    await deps.leases.release(key);
    log.error({ error: describeError(error) }, "interaction handler failed: lease released");
    return { status: "failed", error: asError(error), key, acked: ack.answered, recorded: false };
  }
}

/**
 * Events and interactions this process is handling, by dedupe key. The store's lease cannot tell
 * two concurrent copies in one process apart (the second sees our own live lease, which
 * {@link DedupeLeases.acquire} takes for one left by a crash), so a copy that arrives while the
 * first is being handled parks here: when the first ended `done` it is a `duplicate`, when the
 * first failed (lease released) it runs itself. Messages have the same guard in
 * `InFlightRegistry`.
 */
export class EventsInFlight {
  readonly #held = new Map<string, Promise<ReceiveOutcome>>();

  /** Runs `handle` for `key` unless a copy is being handled here; see the class. */
  async run(key: DedupeKey, handle: () => Promise<ReceiveOutcome>): Promise<ReceiveOutcome> {
    const id = dedupeKeyString(key);
    for (;;) {
      const held = this.#held.get(id);
      if (!held) break;
      const first = await held.catch(() => undefined);
      if (first && (first.status === "event" || first.status === "interaction"))
        return { status: "duplicate", key };
      if (first?.status === "duplicate") return first;
    }
    const running = handle();
    this.#held.set(id, running);
    try {
      return await running;
    } finally {
      if (this.#held.get(id) === running) this.#held.delete(id);
    }
  }
}
