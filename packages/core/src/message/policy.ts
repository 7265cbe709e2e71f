/**
 * Lifecycle policies (seed `message-lifecycle.md`, "Receive context" and "Send context").
 *
 * @module
 */

/**
 * When a receiver answers the platform (transport ack or polling offset), never reused for
 * read receipts:
 * - `immediate`: persist the event, answer at once, process in the background (webhook timeouts).
 * - `after-record`: answer once the inbound record is durable.
 * - `after-durable-send`: answer once the reply's send intents are durable.
 * - `manual`: the receiver acks itself.
 */
export type ReceiveAckPolicy =
  | { kind: "immediate"; reason: "webhook-timeout" | "platform-contract" }
  | { kind: "after-record" }
  | { kind: "after-durable-send" }
  | { kind: "manual" };

/**
 * What a send does when the durable intent cannot be written:
 * - `required` (default): fail closed with a typed error and no platform I/O.
 * - `best_effort`: fall through to a direct send.
 * - `disabled`: always a direct send, no intent.
 */
export type MessageDurabilityPolicy = "required" | "best_effort" | "disabled";
