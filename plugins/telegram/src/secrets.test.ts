/**
 * DESIGN §11: the bot token is part of every Bot API URL; it must appear in no stored failure
 * reason and no log line, whatever failed.
 */
import { isHeldForOperator } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { FAKE_BOT } from "./testing/FakeTelegram.ts";

describe("the bot token never leaks", () => {
  it("is in no stored failure and no log line after refusals, resets, rejections and a description quoting the URL", async () => {
    const b = await openBench({ config: { reconcile: "probe" } });
    const { target } = b.dm();
    const secretHalf = FAKE_BOT.token.split(":")[1] as string;

    b.fake.failNext({ kind: "status", status: 401, description: "Unauthorized" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "a"), { idempotencyKey: "s1" });
    b.fake.failNext(
      {
        kind: "status",
        status: 400,
        description: `Bad Request: failed to fetch http://proxy/bot${FAKE_BOT.token}/sendMessage`,
      },
      { op: "send" },
    );
    await b.runtime.enqueue(b.message(target, "b"), { idempotencyKey: "s2" });
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "c"), { idempotencyKey: "s3" });
    for (const key of ["s1", "s2", "s3"]) await b.settled(key);
    expect(isHeldForOperator((await b.intent("s3")) as never)).toBe(true);

    const restore = await b.fake.faults.refuseConnections();
    await b.runtime.enqueue(b.message(b.dm().target, "d"), { idempotencyKey: "s4" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await restore();
    await b.settled("s4");

    const failures = (await b.store.listIntents({ limit: 1_000 })).map((i) => i.failure);
    expect(failures.filter(Boolean).length).toBeGreaterThanOrEqual(3);
    const stored = JSON.stringify(await b.store.listIntents({ limit: 1_000 }));
    expect(stored).toContain("failed to fetch http://proxy/bot[redacted]/sendMessage");
    for (const haystack of [stored, b.logLines.join("\n")]) {
      expect(haystack).not.toContain(FAKE_BOT.token);
      expect(haystack).not.toContain(secretHalf);
    }
    expect(b.logLines.length).toBeGreaterThan(5);
  });

  it("is redacted in its trimmed form when the environment holds it with a trailing newline", async () => {
    const b = await openBench({ token: `${FAKE_BOT.token}\n` }); // a k8s secret / .env line
    const { target } = b.dm();
    b.fake.failNext(
      {
        kind: "status",
        status: 400,
        description: `Bad Request: failed to fetch http://proxy/bot${FAKE_BOT.token}/sendMessage`,
      },
      { op: "send" },
    );
    await b.runtime.enqueue(b.message(target, "x"), { idempotencyKey: "nl" });
    expect((await b.settled("nl")).status).toBe("failed");
    const stored = JSON.stringify(await b.store.listIntents({ limit: 100 }));
    expect(stored).toContain("failed to fetch http://proxy/bot[redacted]/sendMessage");
    for (const haystack of [stored, b.logLines.join("\n")]) {
      expect(haystack).not.toContain(FAKE_BOT.token);
      expect(haystack).not.toContain(FAKE_BOT.token.split(":")[1] as string);
    }
  });
});
