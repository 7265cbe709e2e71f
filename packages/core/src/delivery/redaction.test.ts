/**
 * Redaction on every path (issue H14 item 11): whatever text an error carries — an adapter
 * that classifies with an empty reason, a classifier that throws, a render or reconcile error —
 * no stored failure keeps the secret. The test greps every stored intent for the token.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import { REDACTED, SecretRedactor } from "../redact.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { eventually } from "./testing/harness.ts";

const TOKEN = "123456:AAH-secret-bot-token_xyz";
/** What an SDK's HTTP error looks like: the request URL, token included. */
const sdkError = () =>
  new Error(
    `request to https://api.example.test/bot${TOKEN}/sendMessage failed, reason: ECONNRESET`,
  );

let runtime: MessageRuntime | undefined;
let store: SqliteStateStore | undefined;
afterEach(async () => {
  await runtime?.stop(500);
  await store?.close();
});

/** The fake adapter, but every call fails with a token-bearing SDK error. */
function leakyAdapter(classify: "empty" | "throws"): ChannelMessageAdapter {
  const base = createFakeAdapter({
    transport: inProcessTransport(new FakePlatform()),
    reconcile: true,
    requestTimeoutMs: 0,
  });
  return {
    ...base,
    send: {
      ...base.send,
      async send() {
        throw sdkError();
      },
      classifyError() {
        if (classify === "throws") throw new TypeError(`cannot classify ${String(sdkError())}`);
        return { kind: "transient", evidence: "not_dispatched", message: "" };
      },
      async reconcileUnknownSend() {
        throw sdkError();
      },
    },
  };
}

async function storedText(): Promise<string> {
  return JSON.stringify(await store?.listIntents({ limit: 100 }));
}

describe("stored failures never keep a secret", () => {
  for (const classify of ["empty", "throws"] as const) {
    it(`classifyError ${classify === "empty" ? "returns an empty reason" : "throws"}: the error text is redacted`, async () => {
      const redactor = new SecretRedactor().add(TOKEN);
      store = new SqliteStateStore({ path: ":memory:" });
      runtime = createMessageRuntime({
        store,
        adapters: [leakyAdapter(classify)],
        random: () => 0.5,
        delivery: {
          pollIntervalMs: 5,
          backoff: { baseMs: 1, maxMs: 2, maxAttempts: 3 },
          maxReconcileChecks: 2,
        },
        redact: (text) => redactor.redact(text),
      });
      await runtime.start();
      await runtime.enqueue(outboundMessage("hello"), { idempotencyKey: `leak-${classify}` });
      const intents = await eventually(
        () => store?.listIntents() ?? [],
        (l) => l[0]?.status === "failed" || l[0]?.failure?.unresolvedChecks !== undefined,
      );
      expect(intents[0]?.failure?.message).toContain(REDACTED);
      expect(intents[0]?.failure?.message).toContain("ECONNRESET"); // the rest of the reason stays
      expect(await storedText()).not.toContain(TOKEN);
      expect(await storedText()).not.toContain(encodeURIComponent(TOKEN));
    });
  }

  it("without a configured redactor, an empty reason keeps no URL path or query", async () => {
    store = new SqliteStateStore({ path: ":memory:" });
    runtime = createMessageRuntime({
      store,
      adapters: [leakyAdapter("empty")],
      random: () => 0.5,
      delivery: { pollIntervalMs: 5, backoff: { baseMs: 1, maxMs: 2, maxAttempts: 2 } },
    });
    await runtime.start();
    await runtime.enqueue(outboundMessage("hello"), { idempotencyKey: "no-redactor" });
    const [failed] = await eventually(
      () => store?.listIntents() ?? [],
      (l) => l[0]?.status === "failed",
    );
    expect(failed?.failure?.message).toContain(`https://api.example.test/${REDACTED} failed`);
    expect(await storedText()).not.toContain(TOKEN);
  });

  it("a render error and a reconcile error are redacted too", async () => {
    const redactor = new SecretRedactor().add(TOKEN);
    store = new SqliteStateStore({ path: ":memory:" });
    const base = leakyAdapter("empty");
    const adapter: ChannelMessageAdapter = {
      ...base,
      render: {
        render(message, ctx) {
          if (message.body?.markdown === "unrenderable") throw sdkError();
          return base.render.render(message, ctx);
        },
      },
      send: {
        ...base.send,
        classifyError: () => ({ kind: "transient", evidence: "maybe_sent", message: "" }),
      },
    };
    runtime = createMessageRuntime({
      store,
      adapters: [adapter],
      random: () => 0.5,
      delivery: {
        pollIntervalMs: 5,
        backoff: { baseMs: 1, maxMs: 2, maxAttempts: 3 },
        maxReconcileChecks: 1,
      },
      redact: (text) => redactor.redact(text),
    });
    await runtime.start();
    await runtime.enqueue(outboundMessage("unrenderable"), { idempotencyKey: "r1" });
    await runtime.enqueue(outboundMessage("unknown outcome", { target: { id: "c2" } }), {
      idempotencyKey: "r2",
    });
    const intents = await eventually(
      () => store?.listIntents() ?? [],
      (l) =>
        l.find((i) => i.idempotencyKey === "r1")?.status === "failed" &&
        (l.find((i) => i.idempotencyKey === "r2")?.failure?.message ?? "").includes("unresolved"),
    );
    expect(intents.map((i) => i.failure?.message).join("\n")).toContain(REDACTED);
    expect(await storedText()).not.toContain(TOKEN);
  });
});

describe("no redactor configured (URLs only)", () => {
  for (const which of ["render", "reconcile"] as const) {
    it(`a ${which} error's URL token is not stored`, async () => {
      store = new SqliteStateStore({ path: ":memory:" });
      const base = leakyAdapter("empty");
      const adapter: ChannelMessageAdapter = {
        ...base,
        render: {
          render(message, ctx) {
            if (message.body?.markdown === "unrenderable") throw sdkError();
            return base.render.render(message, ctx);
          },
        },
        send: {
          ...base.send,
          classifyError: () => ({ kind: "transient", evidence: "maybe_sent", message: "" }),
        },
      };
      runtime = createMessageRuntime({
        store,
        adapters: [adapter],
        random: () => 0.5,
        delivery: {
          pollIntervalMs: 5,
          backoff: { baseMs: 1, maxMs: 2, maxAttempts: 3 },
          maxReconcileChecks: 1,
        },
      });
      await runtime.start();
      await runtime.enqueue(outboundMessage(which === "render" ? "unrenderable" : "unknown"), {
        idempotencyKey: which,
      });
      const [intent] = await eventually(
        () => store?.listIntents() ?? [],
        (l) =>
          which === "render"
            ? l[0]?.status === "failed"
            : (l[0]?.failure?.message ?? "").includes("unresolved"),
      );
      expect(intent?.failure?.message).toContain(`https://api.example.test/${REDACTED}`);
      expect(await storedText()).not.toContain(TOKEN);
    });
  }
});
