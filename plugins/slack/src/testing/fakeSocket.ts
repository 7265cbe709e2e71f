/**
 * The fake's Socket Mode side, on the SDK's `FakeSocketServer`: `apps.connections.open`
 * (app-level `xapp-` tokens) answers a `ws://127.0.0.1` URL; every connection gets `hello`, then
 * envelopes `{ envelope_id, type: "events_api", payload, retry_attempt }`; the client's acks
 * (`{ envelope_id }`) are recorded. An envelope not acked is kept for {@link FakeSocketMode.redeliverUnacked}
 * (Slack redelivers it, with a higher `retry_attempt`), and any envelope — acked too, as when
 * the ack reached Slack late or the connection was replaced — can be sent again with
 * {@link FakeSocketMode.redeliver}: `retry_attempt` > 0 and a `retry_reason`, the same `payload`
 * (its `event_id` unchanged) under a new `envelope_id`. Source: Slack's Socket Mode envelopes carry
 * `retry_attempt` / `retry_reason` beside `payload` (`@slack/socket-mode` SocketModeClient reads
 * them as `retry_num` / `retry_reason`; slackapi/bolt-python#1484 shows a redelivered envelope
 * with `retry_attempt: 2`, `retry_reason: "http_timeout"`); PLATFORMS.md §9; CASES C44.
 *
 * @module
 */
import { FakeSocketServer } from "@herald/plugin-sdk/testing";
import type { FakeSlack } from "./FakeSlack.ts";
import { fail, ok, readArgs } from "./fakeWire.ts";

/** An app-level token the fake accepts, per bot. */
export type FakeAppToken = { appToken: string; botToken: string };

type Pending = { envelope_id: string; payload: unknown; retry_attempt: number };

/** Why Slack sends an event again (the Events API's retry reasons). */
export type FakeRetryReason =
  | "timeout"
  | "http_timeout"
  | "connection_failed"
  | "http_error"
  | "unknown_error";

/** Socket Mode for a {@link FakeSlack}. */
export class FakeSocketMode {
  readonly socket = new FakeSocketServer();
  /** Envelope ids the client acked, in order. */
  readonly acked: string[] = [];
  readonly #pending = new Map<string, Pending>();
  /** Every envelope sent, by id (redeliveries too). */
  readonly #sent = new Map<string, Pending>();
  readonly #fake: FakeSlack;
  #next = 1;

  constructor(fake: FakeSlack, tokens: readonly FakeAppToken[]) {
    this.#fake = fake;
    fake.server.route("POST", "/api/apps.connections.open", "connect", async (c) => {
      await readArgs(c.req.raw);
      const header = c.req.header("authorization") ?? "";
      const token = header.startsWith("Bearer ") ? header.slice(7) : "";
      if (!tokens.some((t) => t.appToken === token)) return fail("invalid_auth");
      return ok({ url: `${this.socket.url}/link/?ticket=${this.#next++}` });
    });
    this.socket.onConnection((conn) => {
      conn.send({ type: "hello", num_connections: 1, connection_info: { app_id: "fake" } });
      void (async () => {
        while (conn.open) {
          const frame = (await conn.next(() => true, 250).catch(() => undefined)) as
            | { envelope_id?: string }
            | undefined;
          if (typeof frame?.envelope_id === "string") {
            this.acked.push(frame.envelope_id);
            this.#pending.delete(frame.envelope_id);
          }
        }
      })();
    });
  }

  /** Starts the WebSocket server. */
  listen(): Promise<string> {
    return this.socket.listen();
  }

  /** Sends an `events_api` envelope with `payload` to every open connection. @returns its id. */
  deliver(payload: unknown): string {
    const envelope_id = `env-${this.#next++}`;
    const pending = { envelope_id, payload, retry_attempt: 0 };
    this.#pending.set(envelope_id, pending);
    this.#sent.set(envelope_id, pending);
    this.socket.broadcast({ ...pending, type: "events_api", accepts_response_payload: false });
    return envelope_id;
  }

  /** Sends every envelope not acked yet again (`retry_attempt` + 1), as Slack does. */
  redeliverUnacked(): number {
    let n = 0;
    for (const p of this.#pending.values()) {
      p.retry_attempt += 1;
      this.socket.broadcast({ ...p, type: "events_api", retry_reason: "timeout" });
      n += 1;
    }
    return n;
  }

  /**
   * Sends the envelope `envelopeId` again, acked or not, as Slack does when it did not see the
   * ack in time: the same payload under a new envelope id, `retry_attempt` one more than the last
   * delivery of it, and `reason`.
   * @returns the new envelope's id.
   * @throws Error when no envelope of that id was sent.
   */
  redeliver(envelopeId: string, reason: FakeRetryReason = "timeout"): string {
    const before = this.#sent.get(envelopeId);
    if (!before) throw new Error(`fake socket mode: no envelope ${envelopeId}`);
    const again = {
      envelope_id: `env-${this.#next++}`,
      payload: before.payload,
      retry_attempt: before.retry_attempt + 1,
    };
    this.#pending.set(again.envelope_id, again);
    this.#sent.set(again.envelope_id, again);
    this.socket.broadcast({
      ...again,
      type: "events_api",
      accepts_response_payload: false,
      retry_reason: reason,
    });
    return again.envelope_id;
  }

  /** The fake this belongs to. */
  get fake(): FakeSlack {
    return this.#fake;
  }

  /** Drops every connection and stops. */
  close(): Promise<void> {
    return this.socket.close();
  }
}
