/**
 * [H24] Matrix in encrypted rooms, end to end with two real matrix-js-sdk clients and their Rust
 * crypto — the bot (the real adapter and `/sync` receiver under a herald runtime) and a person
 * ({@link E2eeUser}) — against the fake homeserver, which only relays keys, to-device messages
 * and ciphertext (its exchanges are checked against the vendored spec).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NotImplementedError } from "@herald/plugin-sdk/channel-message";
import { eventually, scaledMs } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { CRYPTO_STORE_FILE } from "./cryptoStore.ts";
import { MatrixDecryptionError } from "./errors.ts";
import { eventRef } from "./send.ts";
import { type Bench, openBench } from "./testing/bench.ts";
import { E2eeUser, type UserSeenEvent } from "./testing/e2eeUser.ts";
import { ALICE, FAKE_BOT, FakeHomeserver } from "./testing/FakeHomeserver.ts";

type Content = Record<string, unknown>;

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "herald-matrix-e2ee-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startFake(): Promise<FakeHomeserver> {
  const fake = await FakeHomeserver.start();
  onTestFinished(() => fake.close());
  return fake;
}

/** The bot with encryption on, its crypto store in `dir/bot`, herald's state in `dir/state.db`. */
function openBot(fake: FakeHomeserver, dir: string, decryptWaitMs = scaledMs(20_000)) {
  return openBench({
    on: fake,
    storePath: join(dir, "state.db"),
    config: { encryption: { storePath: join(dir, "bot"), decryptWaitMs } },
  });
}

async function startAlice(fake: FakeHomeserver, dir: string): Promise<E2eeUser> {
  const alice = await E2eeUser.start(fake.url, ALICE, join(dir, "alice"));
  onTestFinished(() => alice.close());
  return alice;
}

/** Waits until the bot's device keys are on the homeserver (its engine opened and uploaded). */
async function botKeysPublished(fake: FakeHomeserver): Promise<Content> {
  return (await eventually(
    () => fake.keys.devices.get(FAKE_BOT.userId)?.get(FAKE_BOT.deviceId),
    (keys) => keys !== undefined,
    { what: "the bot's device keys uploaded" },
  )) as Content;
}

const bodies = (b: Bench) => b.handled.map((h) => h.input.body?.markdown);
const clearOf = (seen: UserSeenEvent[], eventId: string) =>
  seen.find((e) => e.eventId === eventId && e.type !== "m.room.encrypted");

/** The stored events the bot sent in a room (what the homeserver holds: ciphertext). */
const botEvents = (fake: FakeHomeserver, roomId: string) =>
  fake.rooms.events.filter(
    (e) => e.room_id === roomId && e.sender === FAKE_BOT.userId && e.state_key === undefined,
  );

describe("[H24] encrypted rooms with two real clients", () => {
  it("an encrypted DM, both ways: Alice's message reaches herald decrypted; herald's answer is stored as ciphertext (txnId kept) and Alice decrypts it", async () => {
    const dir = tempDir();
    const fake = await startFake();
    const room = fake.createRoom({ direct: true, encrypted: true });
    const b = await openBot(fake, dir);
    await b.startReceiver();
    await botKeysPublished(fake);
    const alice = await startAlice(fake, dir);
    await alice.sync();

    const asked = await alice.send(room.id, "hello bot, the password is swordfish");
    expect(fake.rooms.get(asked)?.type).toBe("m.room.encrypted");
    expect(JSON.stringify(fake.rooms.get(asked))).not.toContain("swordfish");
    await eventually(
      () => bodies(b),
      (all) => all.includes("hello bot, the password is swordfish"),
      { what: "Alice's message handled, decrypted" },
    );
    const handled = b.handled[0]?.input;
    expect(handled?.platformMessageId).toBe(eventRef(room.id, asked));
    expect(handled?.target.kind).toBe("direct");
    expect(handled?.sender?.id).toBe(ALICE.userId);

    await b.runtime.send(b.say({ kind: "direct", id: room.id }, "hello Alice, **secretly**"));
    const [sent] = botEvents(fake, room.id).filter((e) => e.type === "m.room.encrypted");
    expect(sent, "the bot's answer is an m.room.encrypted event").toBeDefined();
    expect(JSON.stringify(sent)).not.toContain("secretly");
    // The txnId is the homeserver's, outside the ciphertext: the reconciliation still reads it.
    expect(sent?.txn?.deviceId).toBe(FAKE_BOT.deviceId);
    expect(fake.clientEvent(sent as never, fake.users[0]).unsigned).toMatchObject({
      transaction_id: sent?.txn?.txnId,
    });
    const seen = await alice.syncUntil((s) => clearOf(s, sent?.event_id as string) !== undefined);
    const clear = clearOf(seen, sent?.event_id as string);
    expect(clear?.content.body).toBe("hello Alice, secretly");
    expect(clear?.content.formatted_body).toBe("<p>hello Alice, <strong>secretly</strong></p>");
    expect(b.parts.e2ee && (await b.parts.e2ee()).storeFile).toBe(
      join(dir, "bot", CRYPTO_STORE_FILE),
    );
  });

  it("an encrypted group room, both ways: a thread reply, an edit (m.replace inside the ciphertext, the relation in the clear), a redaction and a live preview, all read by Alice", async () => {
    const dir = tempDir();
    const fake = await startFake();
    const room = fake.createRoom({ encrypted: true });
    const b = await openBot(fake, dir);
    await b.startReceiver();
    await botKeysPublished(fake);
    const alice = await startAlice(fake, dir);
    await alice.sync();

    const root = await alice.send(room.id, "a question for the group");
    await eventually(
      () => b.handled.map((h) => h.input),
      (all) => all.some((m) => m.body?.markdown === "a question for the group"),
      { what: "the group message handled" },
    );
    expect(b.handled[0]?.input.target.kind).toBe("group");

    const thread = { kind: "thread" as const, id: room.id, parentId: room.id, threadId: root };
    const answer = await b.runtime.send(b.say(thread, "first answer"));
    const edited = await b.runtime.edit(answer, b.say(thread, "better answer"));
    const original = answer.platformMessageIds[0]?.split(":$")[1];
    const originalId = `$${original}`;

    const stored = botEvents(fake, room.id);
    expect(stored.every((e) => e.type === "m.room.encrypted")).toBe(true);
    const edit = stored.at(-1);
    expect(edit?.content["m.relates_to"], "the edit's relation stays in the clear").toMatchObject({
      rel_type: "m.replace",
      event_id: originalId,
    });
    expect(edit?.content["m.new_content"], "the new content is only inside").toBeUndefined();

    const seen = await alice.syncUntil((s) => clearOf(s, edit?.event_id as string) !== undefined);
    const first = clearOf(seen, originalId);
    expect(first?.content.body).toBe("first answer");
    expect(first?.content["m.relates_to"]).toMatchObject({ rel_type: "m.thread", event_id: root });
    const shownEdit = clearOf(seen, edit?.event_id as string);
    expect((shownEdit?.content["m.new_content"] as Content | undefined)?.body).toBe(
      "better answer",
    );
    expect(shownEdit?.content["m.relates_to"]).toMatchObject({
      rel_type: "m.replace",
      event_id: originalId,
    });

    await b.runtime.delete(edited, b.say(thread, ""));
    expect(fake.rooms.get(originalId)?.redactedBy).toBeDefined();
    await alice.syncUntil((s) => s.some((e) => e.type === "m.room.redaction"));

    const live = await b.runtime.live({ channel: "matrix", target: thread, accountId: "main" });
    live.update("thinking");
    await eventually(
      () => botEvents(fake, room.id).length,
      (n) => n >= 4,
      { what: "the live preview sent" },
    );
    await live.finalize("the final answer");
    const textOf = (e: UserSeenEvent) =>
      (e.content["m.new_content"] as Content | undefined)?.body ?? e.content.body;
    const final = await alice.syncUntil((s) =>
      s.some((e) => e.sender === FAKE_BOT.userId && textOf(e) === "the final answer"),
    );
    // A preview redacted before Alice synced shows no content (nothing to decrypt); every other
    // event of the bot Alice decrypted.
    const undecrypted = final.filter(
      (e) => e.sender === FAKE_BOT.userId && e.failure && !fake.rooms.get(e.eventId)?.redactedBy,
    );
    expect(undecrypted, "Alice decrypted every event of the bot").toEqual([]);
    expect(botEvents(fake, room.id).every((e) => e.type !== "m.room.message")).toBe(true);
  });

  it("Alice's encrypted edit and reply reach herald with their relations (m.relates_to travels in the clear, the rest decrypted)", async () => {
    const dir = tempDir();
    const fake = await startFake();
    const room = fake.createRoom({ encrypted: true });
    const b = await openBot(fake, dir);
    await b.startReceiver();
    await botKeysPublished(fake);
    const alice = await startAlice(fake, dir);
    await alice.sync();
    const original = await alice.send(room.id, "frist");
    await alice.send(room.id, "* first", {
      "m.new_content": { msgtype: "m.text", body: "first" },
      "m.relates_to": { rel_type: "m.replace", event_id: original },
    });
    await alice.send(room.id, "> <@alice:fake.test> first\n\nand a reply", {
      "m.relates_to": { "m.in_reply_to": { event_id: original } },
    });
    const edited = await eventually(
      () => b.outcomes.find((o) => o.status === "event" && o.event.type === "message_edited"),
      (o) => o !== undefined,
      { what: "the encrypted edit handled as message_edited" },
    );
    expect(edited?.status === "event" && edited.event).toMatchObject({
      platformMessageId: eventRef(room.id, original),
      message: { body: { markdown: "first" } },
    });
    await eventually(
      () => bodies(b),
      (all) => all.includes("and a reply"),
      { what: "the reply handled, its fallback stripped" },
    );
  });

  it("a bot restart in the middle keeps decrypting: the same device and keys, the room key of the session before the restart still opens Alice's next message, and Alice reads the bot's", async () => {
    const dir = tempDir();
    const fake = await startFake();
    const room = fake.createRoom({ direct: true, encrypted: true });
    const first = await openBot(fake, dir);
    await first.startReceiver();
    const keysBefore = await botKeysPublished(fake);
    const alice = await startAlice(fake, dir);
    await alice.sync();
    await alice.send(room.id, "before the restart");
    await eventually(
      () => bodies(first),
      (all) => all.includes("before the restart"),
    );
    await first.close();
    const uploadsBefore = fake.server.calls.filter((c) => c.path.endsWith("/keys/upload")).length;

    // Alice's next message uses the same Megolm session: only the persisted room key opens it.
    const after = await alice.send(room.id, "after the restart");
    const second = await openBot(fake, dir);
    await second.startReceiver();
    await eventually(
      () => bodies(second),
      (all) => all.includes("after the restart"),
      { what: "the message after the restart decrypted" },
    );
    expect(second.handled.map((h) => h.input.platformMessageId)).toContain(
      eventRef(room.id, after),
    );
    expect(second.handled.filter((h) => h.input.body?.markdown === "before the restart")).toEqual(
      [],
    );
    expect(fake.keys.devices.get(FAKE_BOT.userId)?.get(FAKE_BOT.deviceId)).toEqual(keysBefore);
    expect(fake.keys.changes.filter((c) => c.user === FAKE_BOT.userId)).toHaveLength(1);
    expect(uploadsBefore).toBeGreaterThan(0);

    await second.runtime.send(second.say({ kind: "direct", id: room.id }, "back again"));
    const reply = botEvents(fake, room.id).at(-1) as { event_id: string };
    const seen = await alice.syncUntil((s) => clearOf(s, reply.event_id) !== undefined);
    expect(clearOf(seen, reply.event_id)?.content.body).toBe("back again");
  });

  it("an event whose room key arrives late waits, is decrypted when it comes, and is handled once (a redelivery of it is a duplicate)", async () => {
    const dir = tempDir();
    const fake = await startFake();
    const room = fake.createRoom({ direct: true, encrypted: true });
    const b = await openBot(fake, dir);
    const receiver = await b.startReceiver();
    await botKeysPublished(fake);
    const alice = await startAlice(fake, dir);
    await alice.sync();
    fake.keys.hold(FAKE_BOT);
    const late = await alice.send(room.id, "my key comes later");
    await eventually(
      () => receiver.decryption().waitedForKeys,
      (n) => n === 1,
      { what: "the event waiting for its key" },
    );
    expect(b.handled).toEqual([]);
    fake.keys.release(fake, FAKE_BOT);
    await eventually(
      () => bodies(b),
      (all) => all.includes("my key comes later"),
      { what: "the event decrypted once its key arrived" },
    );
    fake.rooms.redeliver(late);
    const ref = eventRef(room.id, late);
    await eventually(
      () => b.outcomes.filter((o) => o.status === "duplicate" && o.key.eventId === ref),
      (o) => o.length === 1,
      { what: "the redelivery answered as a duplicate" },
    );
    expect(b.handled.filter((h) => h.input.platformMessageId === ref)).toHaveLength(1);
    expect(receiver.decryption()).toMatchObject({
      waitedForKeys: 1,
      undecryptable: 0,
      decrypted: 1,
    });
  });

  it("a room key that never arrives: after decryptWaitMs the event is dead-lettered with MatrixDecryptionError (HERALD_MATRIX_UNDECRYPTABLE, the SDK's reason), never dropped", async () => {
    const dir = tempDir();
    const fake = await startFake();
    const room = fake.createRoom({ direct: true, encrypted: true });
    const b = await openBot(fake, dir, scaledMs(300));
    const receiver = await b.startReceiver();
    await botKeysPublished(fake);
    const alice = await startAlice(fake, dir);
    await alice.sync();
    fake.keys.hold(FAKE_BOT);
    await alice.send(room.id, "nobody can read me");
    const outcome = await eventually(
      () => b.outcomes.find((o) => o.status === "dead_lettered"),
      (o) => o !== undefined,
      { what: "the undecryptable event dead-lettered" },
    );
    const error = (outcome as { error?: { cause?: unknown } }).error?.cause;
    expect(error).toBeInstanceOf(MatrixDecryptionError);
    expect(error).toMatchObject({
      code: "HERALD_MATRIX_UNDECRYPTABLE",
      reason: "MEGOLM_UNKNOWN_INBOUND_SESSION_ID",
    });
    expect(b.handled).toEqual([]);
    expect(receiver.decryption().undecryptable).toBe(1);
  });

  it("a member who joins the encrypted room after the bot's first message gets the next room key and reads the bot's next message", async () => {
    const dir = tempDir();
    const bob = {
      userId: "@bob:fake.test",
      password: "bob-password",
      accessToken: "syt_Ym9i_bobTokenForTests_4Lq8",
      deviceId: "BOBLAPTOP",
      bot: false,
    };
    const fake = await FakeHomeserver.start({ users: [bob] });
    onTestFinished(() => fake.close());
    const room = fake.createRoom({ encrypted: true, members: [FAKE_BOT.userId, ALICE.userId] });
    const b = await openBot(fake, dir);
    await b.startReceiver();
    await botKeysPublished(fake);
    const alice = await startAlice(fake, dir);
    await alice.sync();
    const target = { kind: "group" as const, id: room.id };
    await b.runtime.send(b.say(target, "before Bob"));

    const bobClient = await E2eeUser.start(fake.url, bob, join(dir, "bob"));
    onTestFinished(() => bobClient.close());
    fake.rooms.join(room.id, bob.userId);
    // The bot's receiver sees Bob's join and starts tracking his devices.
    await eventually(
      () => b.outcomes.filter((o) => o.status !== "duplicate").length,
      (n) => n >= 1,
      { what: "Bob's join received" },
    );
    await b.runtime.send(b.say(target, "after Bob joined"));
    const last = botEvents(fake, room.id).at(-1) as { event_id: string };
    const seen = await bobClient.syncUntil((s) => clearOf(s, last.event_id) !== undefined);
    expect(clearOf(seen, last.event_id)?.content.body).toBe("after Bob joined");
  });

  it("the bot's own encrypted event it cannot open (a store restored from an older backup) is not waited for and is ignored like every own event, not dead-lettered", async () => {
    const dir = tempDir();
    const fake = await startFake();
    const room = fake.createRoom({ direct: true, encrypted: true });
    const b = await openBot(fake, dir, scaledMs(60_000));
    const receiver = await b.startReceiver();
    await botKeysPublished(fake);
    fake.rooms.append({
      room_id: room.id,
      type: "m.room.encrypted",
      sender: FAKE_BOT.userId,
      content: {
        algorithm: "m.megolm.v1.aes-sha2",
        ciphertext: "AwgAEnAcL2p1bXBlZA",
        device_id: FAKE_BOT.deviceId,
        sender_key: "c2VuZGVyIGtleSBvZiBhbiBvbGRlciBzdG9yZQ",
        session_id: "c2Vzc2lvbiBvZiBhbiBvbGRlciBzdG9yZQ",
      },
    });
    const ignored = await eventually(
      () => b.outcomes.find((o) => o.status === "ignored" && o.reason === "own_event"),
      (o) => o !== undefined,
      { what: "the own undecryptable event ignored" },
    );
    expect(ignored).toMatchObject({ detail: expect.stringContaining("undecryptable own event") });
    expect(b.outcomes.filter((o) => o.status === "dead_lettered")).toEqual([]);
    expect(receiver.decryption()).toMatchObject({ waitedForKeys: 0, undecryptable: 1 });
  });

  it("files in an encrypted room are not built: NotImplementedError, nothing sent", async () => {
    const dir = tempDir();
    const fake = await startFake();
    const room = fake.createRoom({ direct: true, encrypted: true });
    const b = await openBot(fake, dir);
    const failed = await b.runtime
      .send(
        b.say({ kind: "direct", id: room.id }, "the report", {
          attachments: [{ kind: "file", url: "https://example.org/report.pdf", name: "r.pdf" }],
        }),
      )
      .then(
        () => undefined,
        (error: unknown) => error as { failure?: Record<string, unknown>; message: string },
      );
    expect(failed?.failure).toMatchObject({
      kind: "invalid_payload",
      evidence: "not_dispatched",
      attempt: 1,
    });
    expect(failed?.message).toContain(
      new NotImplementedError("Matrix attachments in encrypted rooms").message.split(":")[0],
    );
    expect(botEvents(fake, room.id)).toEqual([]);
  });
});
