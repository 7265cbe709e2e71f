/**
 * CASES C09 (in-flight duplicate, then failure) and the two-event-types rule: dedupe is a lease
 * on the platform message identity, released on failure.
 */
import { describe, expect, it } from "vitest";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { manualClock } from "./testing/clock.ts";
import { deferred, settle } from "./testing/deferred.ts";
import { createFakeDiscordAdapter, discordMessage } from "./testing/fakeDiscord.ts";
import { createFakeSlackAdapter, slackEnvelope } from "./testing/fakeSlack.ts";
import { receiveBench } from "./testing/harness.ts";

const discord = { channel: "discord", accountId: "bot" };
const key1234 = { channel: "discord", accountId: "bot", eventId: "1234" };
const human = { id: "42" };

describe("C09 · in-flight duplicate, then failure (Discord)", () => {
  it("runs the parked duplicate after the first processing throws: processed successfully exactly once", async () => {
    const firstStarted = deferred();
    const failFirst = deferred();
    let calls = 0;
    const bench = receiveBench([createFakeDiscordAdapter()], {
      handler: async () => {
        calls += 1;
        if (calls === 1) {
          firstStarted.resolve();
          await failFirst.promise;
          throw new Error("upstream 500");
        }
      },
    });
    const first = bench.runtime.receive(discordMessage("1234", human), discord);
    await firstStarted.promise;
    const second = bench.runtime.receive(discordMessage("1234", human), discord);
    await settle();
    expect(bench.processed).toEqual([]); // the duplicate is parked, not processed in parallel
    failFirst.resolve();
    expect((await first.done).status).toBe("failed");
    expect((await second.done).status).toBe("processed");
    expect(bench.processedIds()).toEqual(["discord/bot/1234"]);
    expect((await bench.store.getDedupe(key1234))?.status).toBe("done");
    // A third delivery is a plain duplicate.
    expect((await bench.runtime.receive(discordMessage("1234", human), discord).done).status).toBe(
      "duplicate",
    );
  });

  it("acknowledges the parked duplicate when the first succeeds, without processing it", async () => {
    const gate = deferred();
    const bench = receiveBench([createFakeDiscordAdapter()], { handler: () => gate.promise });
    const first = bench.runtime.receive(discordMessage("1234", human), discord);
    const second = bench.runtime.receive(discordMessage("1234", human), discord);
    gate.resolve();
    expect((await first.done).status).toBe("processed");
    expect((await second.done).status).toBe("duplicate");
    expect(await second.ack).toEqual({ kind: "accept" });
    expect(bench.processed).toHaveLength(1);
  });

  it("across processes: the other process answers `retry`; after the failure a redelivery is processed once", async () => {
    const clock = manualClock();
    const store = new SqliteStateStore({ path: ":memory:", clock: clock.now });
    const started = deferred();
    const fail = deferred();
    const a = receiveBench([createFakeDiscordAdapter()], {
      store,
      clock,
      instanceId: "a",
      handler: async () => {
        started.resolve();
        await fail.promise;
        throw new Error("crash in tool call");
      },
    });
    const b = receiveBench([createFakeDiscordAdapter()], { store, clock, instanceId: "b" });
    const onA = a.runtime.receive(discordMessage("1234", human), discord);
    await started.promise;
    const onB = b.runtime.receive(discordMessage("1234", human), discord);
    expect(await onB.ack).toMatchObject({ kind: "retry", reason: "in_flight_elsewhere" });
    expect((await onB.done).status).toBe("busy");
    fail.resolve();
    expect((await onA.done).status).toBe("failed");
    expect(await onA.ack).toMatchObject({ kind: "retry" });
    // The platform redelivers (to either process).
    expect((await b.runtime.receive(discordMessage("1234", human), discord).done).status).toBe(
      "processed",
    );
    expect((await a.runtime.receive(discordMessage("1234", human), discord).done).status).toBe(
      "duplicate",
    );
    expect([...a.processedIds(), ...b.processedIds()]).toEqual(["discord/bot/1234"]);
  });
});

describe("one message delivered as two event types", () => {
  const slack = { channel: "slack", accountId: "T1" };
  const asMessage = slackEnvelope({ ts: "171.0001", text: "<@U_BOT> deploy?" }, "Ev1");
  const asMention = slackEnvelope(
    { type: "app_mention", ts: "171.0001", text: "<@U_BOT> deploy?" },
    "Ev2",
  );

  it("becomes one turn with merged flags when both arrive together and a mention is required", async () => {
    const bench = receiveBench([createFakeSlackAdapter()], { requireMention: true });
    const outcomes = await Promise.all([
      bench.runtime.receive(asMessage, slack).done,
      bench.runtime.receive(asMention, slack).done,
    ]);
    expect(outcomes.filter((o) => o.status === "processed")).toHaveLength(1);
    expect(bench.processed).toHaveLength(1);
    expect(bench.processed[0]?.event).toMatchObject({
      mentionsSelf: true,
      eventTypes: expect.arrayContaining(["message", "app_mention"]),
    });
  });

  it("lets the mention event win when the plain event came first and was dropped for want of a mention", async () => {
    const bench = receiveBench([createFakeSlackAdapter()], { requireMention: true });
    expect(await bench.runtime.receive(asMessage, slack).done).toMatchObject({
      status: "dropped",
      reason: "mention_required",
    });
    expect((await bench.runtime.receive(asMention, slack).done).status).toBe("processed");
    expect(bench.processed).toHaveLength(1);
    expect(bench.processed[0]?.event).toMatchObject({
      mentionsSelf: true,
      eventTypes: ["message", "app_mention"],
    });
  });

  it("treats the later event type as a duplicate when the first was already processed", async () => {
    const bench = receiveBench([createFakeSlackAdapter()]);
    expect((await bench.runtime.receive(asMention, slack).done).status).toBe("processed");
    expect((await bench.runtime.receive(asMessage, slack).done).status).toBe("duplicate");
    expect(bench.processed).toHaveLength(1);
  });
});
