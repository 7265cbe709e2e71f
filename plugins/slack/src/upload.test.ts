import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeliveryFailedError } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { ALICE } from "./testing/index.ts";
import { openSlackRun } from "./testkit.ts";

async function mediaServer(bytes: Uint8Array): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/pdf" }).end(bytes);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/report.pdf`;
}

describe("file uploads", () => {
  it("uploads a local file with the external upload flow and shares it in the thread, with its caption", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    const root = run.fake.addMessage({ channel, text: "send the log", user: ALICE.id });
    const dir = mkdtempSync(join(tmpdir(), "herald-slack-"));
    const path = join(dir, "build.log");
    writeFileSync(path, "line 1\nline 2\n");
    const receipt = await run.runtime.send(
      run.message(
        "slack",
        { kind: "thread", id: channel, parentId: channel, threadId: root.ts },
        "here it is",
        { attachments: [{ kind: "file", path, name: "build.log", caption: "the **full** log" }] },
      ),
    );
    const visible = run.fake.messages(channel, { thread: root.ts });
    expect(visible.map((m) => m.text)).toEqual(["the *full* log", "here it is"]);
    const share = run.fake.messageOfVisible(visible[0] as never);
    expect(receipt.platformMessageIds[0]).toBe(`${channel}:${share?.ts}`);
    const file = run.fake.files.get(share?.files[0] ?? "");
    expect(new TextDecoder().decode(file?.bytes)).toBe("line 1\nline 2\n");
    expect(file).toMatchObject({ name: "build.log", title: "build.log" });
  });

  it("reads a remote file through the guarded fetch: a private address is refused unless allowed", async () => {
    const bytes = new TextEncoder().encode("%PDF-1.7 fake");
    const url = await mediaServer(bytes);
    const blocked = await openSlackRun(onTestFinished);
    const c1 = blocked.fake.createChannel().id;
    const error = await blocked.runtime
      .send(
        blocked.message("slack", { kind: "group", id: c1 }, "report", {
          attachments: [{ kind: "file", url }],
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryFailedError);
    expect((error as DeliveryFailedError).failure).toMatchObject({
      kind: "invalid_payload",
      evidence: "not_dispatched",
    });
    expect(blocked.fake.messages(c1)).toEqual([]);

    const allowed = await openSlackRun(onTestFinished, { media: { allowPrivateNetworks: true } });
    const c2 = allowed.fake.createChannel().id;
    await allowed.runtime.send(
      allowed.message("slack", { kind: "group", id: c2 }, "report", {
        attachments: [{ kind: "file", url }],
      }),
    );
    const [share] = allowed.fake.messages(c2);
    const file = allowed.fake.files.get(
      allowed.fake.messageOfVisible(share as never)?.files[0] ?? "",
    );
    expect(file?.name).toBe("report.pdf");
    expect(file?.bytes).toEqual(bytes);
  });

  it("an image with a public URL is an image block Slack fetches itself: nothing is downloaded", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    await run.runtime.send(
      run.message("slack", { kind: "group", id: channel }, "a cat", {
        attachments: [{ kind: "image", url: "https://example.com/cat.png", caption: "Tom" }],
      }),
    );
    const [image, text] = run.fake.messages(channel);
    expect(run.fake.messageOfVisible(image as never)?.blocks).toEqual([
      { type: "image", image_url: "https://example.com/cat.png", alt_text: "Tom" },
    ]);
    expect(text?.text).toBe("a cat");
    expect(run.fake.server.calls.some((c) => c.op === "upload")).toBe(false);
  });

  it("a failed upload before the share is retried safely: the file is shared once", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    const dir = mkdtempSync(join(tmpdir(), "herald-slack-"));
    const path = join(dir, "a.txt");
    writeFileSync(path, "a");
    run.fake.failNext({ kind: "status", status: 503 }, { op: "upload" });
    await run.runtime.enqueue(
      run.message("slack", { kind: "group", id: channel }, "", {
        body: { markdown: "" },
        attachments: [{ kind: "file", path }],
      }),
      { idempotencyKey: "up1" },
    );
    const intent = await run.settled("up1");
    expect(intent.status).toBe("sent");
    expect(run.fake.messages(channel)).toHaveLength(1);
    expect(
      [...run.fake.files.values()].filter((f) => Object.keys(f.shares).length > 0),
    ).toHaveLength(1);
  });
});
