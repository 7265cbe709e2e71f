/**
 * Live updates of the console over server-sent events (`GET /console/events`): `queue` when an
 * intent settled in this process or the queue's counts changed (also through another process or
 * the CLI: the counts are polled while a page listens), `ledger` when a turn started or ended or
 * an activity message was recorded. Pages re-fetch their fragment on the event (htmx SSE
 * extension, `hx-trigger="sse:queue"`); events carry no data.
 *
 * @module
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { ConsoleDeps } from "./deps.ts";

/** An event name pages listen for. */
export type ConsoleEvent = "queue" | "ledger";

/** How often the queue counts are polled while a page listens, in ms. */
export const COUNTS_POLL_MS = 1_000;
/** Events within this window are sent once, in ms. */
const COALESCE_MS = 150;
/** Comment line sent to keep idle connections open, in ms. */
const PING_MS = 15_000;

/** Fans events out to the open event streams. */
export class ConsoleEvents {
  readonly #listeners = new Set<(event: ConsoleEvent) => void>();
  readonly #deps: ConsoleDeps;
  readonly #unsubscribe: Array<() => void> = [];
  #poll: ReturnType<typeof setInterval> | undefined;
  #fingerprint = "";

  constructor(deps: ConsoleDeps) {
    this.#deps = deps;
    this.#unsubscribe.push(
      deps.runtime.worker.on((event) => {
        deps.attempts.record(event, deps.clock());
        if (event.type === "settled") this.emit("queue");
      }),
      deps.runtime.onTurn(() => this.emit("ledger")),
      deps.runtime.onActivity(() => this.emit("ledger")),
    );
  }

  /** Sends `event` to every open stream. */
  emit(event: ConsoleEvent): void {
    for (const fn of this.#listeners) fn(event);
  }

  /** Stops listening to the runtime (the gateway stops). */
  close(): void {
    for (const fn of this.#unsubscribe) fn();
    if (this.#poll) clearInterval(this.#poll);
    this.#poll = undefined;
  }

  #watchCounts(): void {
    if (this.#poll || this.#listeners.size === 0) return;
    this.#poll = setInterval(() => {
      if (this.#listeners.size === 0) {
        clearInterval(this.#poll);
        this.#poll = undefined;
        return;
      }
      this.#deps.store.countIntents().then(
        (counts) => {
          const fingerprint = JSON.stringify(counts);
          if (this.#fingerprint && fingerprint !== this.#fingerprint) this.emit("queue");
          this.#fingerprint = fingerprint;
        },
        () => {},
      );
    }, COUNTS_POLL_MS);
    this.#poll.unref?.();
  }

  /** The `GET /events` handler. */
  stream(c: Context): Response {
    return streamSSE(c, async (stream) => {
      const pending = new Set<ConsoleEvent>();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let wake: (() => void) | undefined;
      const listener = (event: ConsoleEvent) => {
        pending.add(event);
        timer ??= setTimeout(() => {
          timer = undefined;
          wake?.();
        }, COALESCE_MS);
      };
      this.#listeners.add(listener);
      this.#watchCounts();
      stream.onAbort(() => {
        this.#listeners.delete(listener);
        wake?.();
      });
      await stream.writeSSE({ event: "hello", data: "" });
      while (!stream.aborted && !stream.closed) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, PING_MS).unref?.();
        });
        wake = undefined;
        if (stream.aborted) break;
        if (pending.size === 0) {
          await stream.write(": ping\n\n");
          continue;
        }
        for (const event of [...pending]) await stream.writeSSE({ event, data: "" });
        pending.clear();
      }
      this.#listeners.delete(listener);
      if (timer) clearTimeout(timer);
    });
  }
}
