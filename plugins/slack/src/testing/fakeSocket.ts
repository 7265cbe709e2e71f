/**
 * The fake's Socket Mode side, on the SDK's `FakeSocketServer`: `apps.connections.open`
 * (app-level `xapp-` tokens) answers a `ws://127.0.0.1` URL; every connection gets `hello`, then
 * envelopes `{ envelope_id, type: "events_api", payload, retry_attempt }`; the client's acks
 * (`{ envelope_id }`) are recorded. An envelope not acked is kept for {@link FakeSocketMode.redeliverUnacked}
 * (Slack redelivers it, with a higher `retry_attempt`).
 *
 * @module
 */
import { FakeSocketServer } from "@herald/plugin-sdk/testing";
import type { FakeSlack } from "./FakeSlack.ts";
import { fail, ok, readArgs } from "./fakeWire.ts";

/** An app-level token the fake accepts, per bot. */
export type FakeAppToken = { appToken: string; botToken: string };

type Pending = { envelope_id: string; payload: unknown; retry_attempt: number };

/** Socket Mode for a {@link FakeSlack}. */
export class FakeSocketMode {
  readonly socket = new FakeSocketServer();
  /** Envelope ids the client acked, in order. */
  readonly acked: string[] = [];
  readonly #pending = new Map<string, Pending>();
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

  /** The fake this belongs to. */
  get fake(): FakeSlack {
    return this.#fake;
  }

  /** Drops every connection and stops. */
  close(): Promise<void> {
    return this.socket.close();
  }
}
