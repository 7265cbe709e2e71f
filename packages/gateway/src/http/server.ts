/**
 * The gateway's HTTP server (hono on `@hono/node-server`): `/livez` (liveness), `/readyz` and
 * `/healthz` (readiness: the store is readable and writable; see `probes.ts`), `/metrics`, and
 * `/webhooks/:channel/:account`, which hands the request to that channel's receiver (it
 * authenticates before anything is recorded, DESIGN §11) once the body passed the route's
 * size limit (`bodyLimit.ts`: 413 before the rest is read), and the web console at `/console`
 * when the gateway has one (`console/console.ts`).
 *
 * Every unexpected error is logged through the gateway's (redacting) logger and answered
 * `500 { error: "internal error" }`; nothing goes to stderr on its own.
 *
 * @module
 */

import type { HeraldLogger, MessageStateStore } from "@herald/core";
import type { ChannelReceiver } from "@herald/plugin-sdk/channel-message";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AccountHealth } from "../accounts/AccountSupervisor.ts";
import type { ConsoleApp } from "../console/console.ts";
import { DEFAULT_WEBHOOK_BODY_LIMIT_BYTES, webhookBodyLimit } from "./bodyLimit.ts";
import { bindHttpListener, type HttpListener } from "./listener.ts";
import type { GatewayMetrics } from "./metrics.ts";
import { type GatewayPhase, readiness, storeProber } from "./probes.ts";

/** A listening server. */
export type HttpServerHandle = { url: string; close(): Promise<void> };

/** Options of {@link createHttpApp} and {@link startHttpServer}. */
export type HttpAppOptions = {
  store: MessageStateStore;
  metrics: GatewayMetrics;
  receivers: ReadonlyMap<string, ChannelReceiver>;
  /** Each account's health, shown in `/readyz` and `/healthz`. */
  accounts?: () => readonly AccountHealth[];
  /** The gateway's phase (readiness). @defaultValue always `ready` */
  phase?: () => GatewayPhase;
  /**
   * The body limit of `/webhooks/<channel>/<account>` in bytes, when the config sets one for
   * that account; else the receiver's `maxWebhookBodyBytes`, else `defaultBodyLimitBytes`.
   */
  bodyLimitOf?: (channel: string, account: string) => number | undefined;
  /** @defaultValue {@link DEFAULT_WEBHOOK_BODY_LIMIT_BYTES} (1 MiB) */
  defaultBodyLimitBytes?: number;
  logger: HeraldLogger;
  /** The web console, mounted at `/console` (none: the path is a 404). */
  console?: ConsoleApp;
};

/** Where the web console is mounted. */
export const CONSOLE_PATH = "/console";

/** Builds the hono app (exported for tests that call `app.request(...)` without a socket). */
export function createHttpApp(options: HttpAppOptions): Hono {
  const app = new Hono();
  // `herald_store_up` runs the same probe (read and write) at every scrape (C50).
  const probe = storeProber({ store: options.store, logger: options.logger });
  const phase = options.phase ?? (() => "ready" as const);
  const ready = async () => readiness(probe, phase(), options.accounts?.() ?? []);
  app.onError((error, c) => {
    // A refusal a middleware raised on purpose (hono's csrf(): 403) keeps its status.
    if (error instanceof HTTPException) return error.getResponse();
    options.logger.error({ err: error, path: c.req.path }, "http request failed");
    return c.json({ error: "internal error" }, 500);
  });
  app.get("/livez", (c) => c.json({ status: "ok", phase: phase() }));
  app.get("/readyz", async (c) => {
    const r = await ready();
    return c.json(r.body, r.httpStatus);
  });
  app.get("/healthz", async (c) => {
    const r = await ready();
    return c.json(r.body, r.httpStatus);
  });
  app.get("/metrics", async (c) => {
    const { body, contentType } = await options.metrics.render();
    return c.body(body, 200, { "content-type": contentType });
  });
  if (options.console) app.route(CONSOLE_PATH, options.console.app);
  const receiverOf = (channel: string, account: string) =>
    options.receivers.get(`${channel}/${account}`);
  app.all(
    "/webhooks/:channel/:account",
    webhookBodyLimit((c) => {
      const channel = c.req.param("channel") ?? "";
      const account = c.req.param("account") ?? "";
      return (
        options.bodyLimitOf?.(channel, account) ??
        receiverOf(channel, account)?.maxWebhookBodyBytes ??
        options.defaultBodyLimitBytes ??
        DEFAULT_WEBHOOK_BODY_LIMIT_BYTES
      );
    }, options.logger),
    async (c) => {
      const receiver = receiverOf(c.req.param("channel"), c.req.param("account"));
      if (!receiver?.webhook) {
        // Still starting, or a configured account still opening (its receiver is registered
        // once it is up): the platform retries a 503 (a 404 may make it drop the update).
        const channel = c.req.param("channel");
        const account = c.req.param("account");
        const opening =
          !receiver &&
          (options.accounts?.() ?? []).some((a) => a.channel === channel && a.account === account);
        if (phase() === "starting" || opening)
          return c.json({ error: "starting" }, 503, { "retry-after": "1" });
        return c.json({ error: "no webhook receiver for this channel/account" }, 404);
      }
      try {
        return await receiver.webhook(c.req.raw);
      } catch (error) {
        options.logger.error(
          { err: error, channel: c.req.param("channel") },
          "webhook handler failed",
        );
        return c.json({ error: "internal error" }, 500);
      }
    },
  );
  return app;
}

/**
 * Serves the app on `options.listener` (bound earlier, see `listener.ts`), or binds
 * `host:port` first.
 *
 * @throws the listen error (`EADDRINUSE`…) when it binds and cannot.
 */
export async function startHttpServer(
  options: HttpAppOptions & { host: string; port: number; listener?: HttpListener },
): Promise<HttpServerHandle> {
  const app = createHttpApp(options);
  const listener =
    options.listener ?? (await bindHttpListener({ host: options.host, port: options.port }));
  listener.serve(getRequestListener(app.fetch, { hostname: listener.host }));
  return { url: listener.url, close: () => listener.close() };
}
