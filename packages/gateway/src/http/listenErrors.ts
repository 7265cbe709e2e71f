/**
 * What the operator reads about the HTTP address: the config error when it cannot be listened
 * on, and the notice printed once the gateway serves on it.
 *
 * @module
 */
import { ConfigError } from "../config/errors.ts";

/**
 * The config error for an HTTP address that cannot be listened on (`EADDRINUSE`,
 * `EACCES`, `EADDRNOTAVAIL`), naming `http.port` / `http.host` and the fix; undefined for other
 * errors.
 */
export function httpListenError(
  error: unknown,
  http: { host: string; port: number },
): ConfigError | undefined {
  const code = (error as { code?: string } | undefined)?.code;
  const at = `${http.host}:${http.port}`;
  if (code === "EADDRINUSE" || code === "EACCES") {
    return new ConfigError("config", [
      {
        path: "http.port",
        message: `${at} ${code === "EADDRINUSE" ? "is in use (another herald gateway, or another server)" : "needs privileges to listen on"}`,
        fix: 'set "http": { "port": <a free port> } in the config (0 = any free port), or stop what holds it',
      },
    ]);
  }
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
    return new ConfigError("config", [
      {
        path: "http.host",
        message: `${http.host} is not an address of this machine`,
        fix: 'use "127.0.0.1" (this machine only) or "0.0.0.0" (every interface)',
      },
    ]);
  }
  return undefined;
}

/** The line printed at start: where the gateway's HTTP server listens and how to change it. */
export function httpNotice(url: string): string {
  return `herald: HTTP server on ${url} (/healthz, /metrics, /webhooks/<channel>/<account>); change it with "http": { "host", "port" } in the config`;
}
