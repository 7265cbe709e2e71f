/**
 * [H23] Google Chat under app authentication: DMs found with `spaces.findDirectMessage` (never
 * created: no DM yet → DirectMessageUnavailableError), ephemeral messages with
 * `privateMessageViewer`, and a user's uploaded file received as an attachment and streamed with
 * `media.download`, capped. The real `@googleapis/chat` client against the fake.
 */
import {
  AttachmentTooLargeError,
  DirectMessageUnavailableError,
} from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ALICE } from "./testing/FakeGoogleChat.ts";
import { directSpacesOf, filesOf } from "./testing/fakeFeatures.ts";
import { type GoogleChatRun, openGoogleChatRun } from "./testing/fixture.ts";

let open: GoogleChatRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const address = { channel: "googlechat", accountId: "main" };

describe("H23 · Google Chat features (app authentication)", () => {
  it("H23 dm: openDirect finds the user's DM with the app (the same space every time); without one it is DirectMessageUnavailableError naming why", async () => {
    open = await openGoogleChatRun();
    const t = open;
    const dm = t.fake.createSpace("DIRECT_MESSAGE").name;
    directSpacesOf(t.fake.store).set(ALICE.name, dm);
    const spacesBefore = t.fake.store.spaces.size;
    const target = await t.run.runtime.openDirect({ ...address, userId: ALICE.name });
    expect(target).toEqual({ kind: "direct", id: dm });
    expect(await t.run.runtime.openDirect({ ...address, userId: ALICE.name })).toEqual(target);
    expect(t.fake.store.spaces.size).toBe(spacesBefore);
    const none = t.run.runtime.openDirect({ ...address, userId: "users/404404" });
    await expect(none).rejects.toBeInstanceOf(DirectMessageUnavailableError);
    await expect(none).rejects.toThrow(/user_never_messaged_app/);
    await expect(t.run.runtime.openDirect({ ...address, userId: "alice" })).rejects.toBeInstanceOf(
      DirectMessageUnavailableError,
    );
  });

  it("H23 ephemeral: sendEphemeral posts a private message (privateMessageViewer) only that user sees", async () => {
    open = await openGoogleChatRun();
    const t = open;
    const space = t.fake.createSpace().name;
    const receipt = await t.run.runtime.sendEphemeral({
      ...address,
      target: { kind: "group", id: space },
      userId: ALICE.name,
      message: { id: "eph-1", body: { markdown: "only you see this" } },
    });
    const name = receipt.parts[0]?.platformMessageId as string;
    const stored = t.fake.store.find(name);
    expect(stored?.privateViewer).toBe(ALICE.name);
    expect(t.fake.store.textOf(stored as NonNullable<typeof stored>)).toBe("only you see this");
  });

  it("H23 files in: an uploaded attachment arrives with its resource name; fetchAttachment streams it (media.download); past maxBytes → AttachmentTooLargeError", async () => {
    open = await openGoogleChatRun({ receiver: true });
    const t = open;
    const space = t.fake.createSpace().name;
    const resource = "ClxDaGF0QXR0YWNobWVudElk";
    filesOf(t.fake.store).set(resource, {
      bytes: new TextEncoder().encode("a,b\n1,2\n"),
      contentType: "text/csv",
    });
    const message = t.fake.store.add({
      space,
      thread: t.fake.store.newThread(space),
      sender: ALICE,
      text: "see attached",
    });
    const event = t.fake.messageEvent(message) as { message: Record<string, unknown> };
    event.message.attachment = [
      {
        name: `${message.name}/attachments/A1`,
        contentName: "data.csv",
        contentType: "text/csv",
        attachmentDataRef: { resourceName: resource },
        source: "UPLOADED_CONTENT",
      },
    ];
    t.fake.deliver(event);
    await eventually(
      () => t.run.handled,
      (h) => h.length === 1,
      { what: "the message with a file handled" },
    );
    const attachment = t.run.handled[0]?.input.attachments?.[0];
    expect(attachment).toEqual({
      kind: "file",
      platformFileId: resource,
      name: "data.csv",
      mimeType: "text/csv",
    });
    const file = attachment as NonNullable<typeof attachment>;
    const stream = await t.run.runtime.fetchAttachment({
      ...address,
      attachment: file,
      maxBytes: 100,
    });
    expect(await new Response(stream).text()).toBe("a,b\n1,2\n");
    const capped = await t.run.runtime.fetchAttachment({
      ...address,
      attachment: file,
      maxBytes: 3,
    });
    await expect(new Response(capped).text()).rejects.toBeInstanceOf(AttachmentTooLargeError);
  });
});
