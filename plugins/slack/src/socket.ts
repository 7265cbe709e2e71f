/**
 * The Socket Mode receiver (`@slack/socket-mode`): `apps.connections.open` with the app-level
 * `xapp-` token, then a WebSocket that carries envelopes `{ envelope_id, type, payload }` —
 * `events_api` (the same `event_callback` the Events API posts), `slash_commands` and
 * `interactive`. No public URL and no signatures: the connection is authenticated by the token.
 *
 * An envelope is acked (`{ envelope_id }`) only once herald recorded it (the sink's ack, within
 * the ack deadline); one that is not acked is delivered again by Slack — with
 * `retry_attempt` — and dedupe by team + channel + ts answers the repeat, so a redelivery after a
 * reconnect is handled once. Reconnects are the gateway's: the client's own auto-reconnect is
 * off, a dropped connection turns the receiver's health `down`, and the gateway's supervisor
 * opens the account again with backoff. The client's `WebClient` makes no retries either.
 *
 * Source: https://docs.slack.dev/apis/events-api/using-socket-mode
 *
 * @module
 */
import {
  type ChannelReceiver,
  type ChannelReceiverSink,
  receiverHealth,
} from "@herald/plugin-sdk/channel-message";
import { LogLevel, SocketModeClient } from "@slack/socket-mode";
import type { SlackEventsConfig } from "./config.ts";

/** Options of {@link createSocketReceiver}. */
export type SocketReceiverOptions = {
  sink: ChannelReceiverSink;
  /** The app-level token (`xapp-…`, scope `connections:write`). */
  appToken: string;
  /** Web API root for `apps.connections.open`. */
  slackApiUrl: string;
  /** Per-request timeout of `apps.connections.open`, in ms. */
  requestTimeoutMs: number;
  /** Answer deadline per envelope, in ms (Slack redelivers an envelope not acked in time). */
  ackDeadlineMs?: SlackEventsConfig["ackDeadlineMs"];
  /** The account of a workspace (one app in several workspaces). */
  accountOfTeam?(teamId: string): string | undefined;
};

const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};

type SlackEnvelope = {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  type: string;
  body: unknown;
  envelope_id: string;
};

/** The Socket Mode receiver of one account (see the module notes). */
export function createSocketReceiver(options: SocketReceiverOptions): ChannelReceiver {
  const health = receiverHealth();
  let client: SocketModeClient | undefined;

  async function onEnvelope(envelope: SlackEnvelope): Promise<void> {
    if (!["events_api", "slash_commands", "interactive"].includes(envelope.type)) return;
    const team = (envelope.body as { team_id?: unknown; team?: { id?: unknown } } | null) ?? {};
    const teamId = typeof team.team_id === "string" ? team.team_id : team.team?.id;
    const accountId = typeof teamId === "string" ? options.accountOfTeam?.(teamId) : undefined;
    const ticket = options.sink.receive(envelope.body, {
      ...(options.ackDeadlineMs !== undefined ? { ackDeadlineMs: options.ackDeadlineMs } : {}),
      ...(accountId !== undefined ? { accountId } : {}),
    });
    const ack = await ticket.ack;
    // Not recorded yet: no ack, so Slack delivers the envelope again.
    if (ack.kind !== "accept") return;
    await envelope.ack().catch(() => {
      // The connection went away first: Slack redelivers; dedupe answers it.
    });
  }

  return {
    async start() {
      health.set("connecting");
      const c = new SocketModeClient({
        appToken: options.appToken,
        autoReconnectEnabled: false,
        logger: quiet,
        logLevel: LogLevel.ERROR,
        clientOptions: {
          slackApiUrl: options.slackApiUrl,
          retryConfig: { retries: 0 },
          timeout: options.requestTimeoutMs,
        },
      });
      client = c;
      c.on("slack_event", (envelope: SlackEnvelope) => {
        void onEnvelope(envelope);
      });
      c.on("connected", () => health.set("up"));
      c.on("disconnected", () => {
        if (client === c) health.set("down", "Socket Mode connection closed");
      });
      try {
        await c.start();
        health.set("up");
      } catch (error) {
        health.set("down", error instanceof Error ? error.message : String(error));
        throw error;
      }
    },
    async stop() {
      const c = client;
      client = undefined;
      await c?.disconnect().catch(() => {});
      health.set("down", "stopped");
    },
    health: () => health.get(),
  };
}
