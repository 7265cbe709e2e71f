/**
 * The gateway's HTTP server (hono on `@hono/node-server`): `/healthz`, `/metrics` and
 * `/webhooks/:channel/:account`, which hands the request to that channel's receiver (it
 * authenticates before anything is recorded, DESIGN §11).
 *
 * @module
 */

import type { HeraldLogger, MessageStateStore } from "@herald/core";
import type { ChannelReceiver } from "@herald/plugin-sdk/channel-message";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { AccountHealth } from "../accounts/AccountSupervisor.ts";
import type { GatewayMetrics } from "./metrics.ts";

/** A listening server. */
export type HttpServerHandle = { url: string; close(): Promise<void> };

/** Builds the hono app (exported for tests that call `app.request(...)` without a socket). */
export function createHttpApp(options: {
  store: MessageStateStore;
  metrics: GatewayMetrics;
  receivers: ReadonlyMap<string, ChannelReceiver>;
  /** Each account's health, shown in `/healthz`. */
  accounts?: () => readonly AccountHealth[];
  logger: HeraldLogger;
}): Hono {
  const app = new Hono();
  app.get("/healthz", async (c) => {
    const accounts = options.accounts?.() ?? [];
    try {
      const queue = await options.store.countIntents();
      // One account down degrades the gateway; it is still serving the others (200).
      const status = accounts.every((a) => a.state === "up") ? "ok" : "degraded";
      return c.json({ status, queue, accounts });
    } catch (error) {
      return c.json({ status: "unavailable", error: (error as Error).message, accounts }, 503);
    }
  });
  app.get("/metrics", async (c) => {
    const { body, contentType } = await options.metrics.render();
    return c.body(body, 200, { "content-type": contentType });
  });
  app.all("/webhooks/:channel/:account", async (c) => {
    const receiver = options.receivers.get(`${c.req.param("channel")}/${c.req.param("account")}`);
    if (!receiver?.webhook)
      return c.json({ error: "no webhook receiver for this channel/account" }, 404);
    try {
      return await receiver.webhook(c.req.raw);
    } catch (error) {
      options.logger.error(
        { err: error, channel: c.req.param("channel") },
        "webhook handler failed",
      );
      return c.json({ error: "internal error" }, 500);
    }
  });
  return app;
}

/** Starts the HTTP server. */
export async function startHttpServer(options: {
  host: string;
  port: number;
  store: MessageStateStore;
  metrics: GatewayMetrics;
  receivers: ReadonlyMap<string, ChannelReceiver>;
  accounts?: () => readonly AccountHealth[];
  logger: HeraldLogger;
}): Promise<HttpServerHandle> {
  const app = createHttpApp(options);
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, hostname: options.host, port: options.port },
      (info) => {
        const host = info.address.includes(":") ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${host}:${info.port}`,
          close: () =>
            new Promise((done) => {
              server.close(() => done());
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      },
    );
    server.once("error", reject);
  });
}
