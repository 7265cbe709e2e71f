/**
 * The interactions endpoint (C29): Ed25519 over the exact bytes received; anything else is 401
 * and records nothing.
 */
import { generateKeyPairSync, sign } from "node:crypto";
import { eventually, openTestRun } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { discordConfigSchema } from "./config.ts";
import { createDiscordAdapter, createDiscordReceiver } from "./index.ts";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "./interactions.ts";
import { FAKE_BOT, FakeDiscord } from "./testing/FakeDiscord.ts";

const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const publicHex = (publicKey.export({ format: "jwk" }) as { x: string }).x;
const PUBLIC_KEY = Buffer.from(publicHex, "base64url").toString("hex");
const other = generateKeyPairSync("ed25519").privateKey;

const signed = (timestamp: string, body: string, key = privateKey) =>
  sign(null, Buffer.concat([Buffer.from(timestamp), Buffer.from(body)]), key).toString("hex");

const now = () => String(Math.floor(Date.now() / 1_000));

async function endpoint() {
  const fake = await FakeDiscord.start();
  const config = discordConfigSchema.parse({
    apiBase: fake.apiBase,
    interactions: { publicKey: PUBLIC_KEY },
  });
  const adapter = createDiscordAdapter(config, FAKE_BOT.token);
  const run = await openTestRun({ adapters: [adapter] });
  onTestFinished(async () => {
    await run.close();
    await fake.close();
  });
  const receiver = createDiscordReceiver(config, FAKE_BOT.token, run.sink("discord"));
  const post = (body: string, headers: Record<string, string>) =>
    receiver.webhook?.(
      new Request("http://127.0.0.1/webhooks/discord/main", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      }),
    ) as Promise<Response>;
  return { run, post, fake };
}

// A PING as Discord might serialize it: odd whitespace, escaped non-ASCII.
const PING = '{ "type":1,\n  "application_id": "700000000000000001" , "note":"caf\\u00e9" }';

describe("C29 · interaction signatures", () => {
  it("a PING signed over timestamp + raw body gets 200 {type:1}; every forgery gets 401 and nothing is recorded", async () => {
    const { run, post } = await endpoint();
    const ts = now();
    const signature = signed(ts, PING);
    const ok = await post(PING, { [SIGNATURE_HEADER]: signature, [TIMESTAMP_HEADER]: ts });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ type: 1 });

    const reserialized = JSON.stringify(JSON.parse(PING));
    const forgeries: Array<[string, string, Record<string, string>]> = [
      [
        "re-serialized body, original signature",
        reserialized,
        { [SIGNATURE_HEADER]: signature, [TIMESTAMP_HEADER]: ts },
      ],
      [
        "signed by another key",
        PING,
        { [SIGNATURE_HEADER]: signed(ts, PING, other), [TIMESTAMP_HEADER]: ts },
      ],
      [
        "another timestamp",
        PING,
        { [SIGNATURE_HEADER]: signature, [TIMESTAMP_HEADER]: String(Number(ts) + 1) },
      ],
      ["no signature", PING, { [TIMESTAMP_HEADER]: ts }],
      ["no timestamp", PING, { [SIGNATURE_HEADER]: signature }],
      ["non-hex signature", PING, { [SIGNATURE_HEADER]: "zz".repeat(64), [TIMESTAMP_HEADER]: ts }],
      [
        "a short signature",
        PING,
        { [SIGNATURE_HEADER]: signature.slice(0, 64), [TIMESTAMP_HEADER]: ts },
      ],
      [
        "a stale timestamp",
        PING,
        { [SIGNATURE_HEADER]: signed("1000000000", PING), [TIMESTAMP_HEADER]: "1000000000" },
      ],
    ];
    for (const [what, body, headers] of forgeries) {
      const response = await post(body, headers);
      expect(response.status, what).toBe(401);
    }
    // [H28] C49: each refusal leaves a log line with its reason (an operator sees a wrong key).
    const refused = run.logLines.filter((l) => l.includes("(401)"));
    expect(refused).toHaveLength(forgeries.length);
    expect(refused.some((l) => l.includes("stale_timestamp"))).toBe(true);
    expect(run.deliveries).toBe(0);
    expect(run.handled).toEqual([]);
  });

  it("a signed slash command is recorded and handled once, answered with a deferred response", async () => {
    const { run, post } = await endpoint();
    const body = JSON.stringify({
      id: "880000000000000001",
      type: 2,
      application_id: FAKE_BOT.applicationId,
      channel_id: "800000000000000001",
      guild_id: "500000000000000001",
      token: "interaction-token",
      member: { user: { id: "600000000000000001", username: "alice" } },
      data: { id: "1", name: "status", options: [{ name: "service", value: "api" }] },
    });
    const ts = now();
    const response = await post(body, {
      [SIGNATURE_HEADER]: signed(ts, body),
      [TIMESTAMP_HEADER]: ts,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ type: 5 });
    const forged = await post(body.replace("api", "db"), {
      [SIGNATURE_HEADER]: signed(ts, body),
      [TIMESTAMP_HEADER]: ts,
    });
    expect(forged.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(run.handled.map((h) => h.input.body?.markdown)).toEqual(["/status service:api"]);
    expect(run.handled[0]?.input).toMatchObject({
      id: "interaction:880000000000000001",
      target: { kind: "group", id: "800000000000000001" },
      sender: { id: "600000000000000001" },
    });
    expect(run.deliveries).toBe(1);
  });

  it("a signed body that is not a JSON object (not JSON, null, an array, a string, empty) gets 400 and records nothing", async () => {
    const { run, post } = await endpoint();
    const ts = now();
    for (const body of ["{not json", "null", "[1]", '"ping"', "", '{"type":1'.slice(0, 8)]) {
      const response = await post(body, {
        [SIGNATURE_HEADER]: signed(ts, body),
        [TIMESTAMP_HEADER]: ts,
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect(run.deliveries).toBe(0);
    expect(run.handled).toEqual([]);
  });

  it("a subcommand's options are kept: /deploy prod service:api, not /deploy prod:", async () => {
    const { run, post } = await endpoint();
    const body = JSON.stringify({
      id: "880000000000000002",
      type: 2,
      application_id: FAKE_BOT.applicationId,
      channel_id: "800000000000000001",
      guild_id: "500000000000000001",
      member: { user: { id: "600000000000000001", username: "alice" } },
      data: {
        id: "1",
        name: "deploy",
        options: [{ name: "prod", type: 1, options: [{ name: "service", type: 3, value: "api" }] }],
      },
    });
    const ts = now();
    const response = await post(body, {
      [SIGNATURE_HEADER]: signed(ts, body),
      [TIMESTAMP_HEADER]: ts,
    });
    expect(response.status).toBe(200);
    await eventually(
      () => run.handled.map((h) => h.input.body?.markdown),
      (texts) => texts.length === 1,
      { what: "the command" },
    );
    expect(run.handled[0]?.input.body?.markdown).toBe("/deploy prod service:api");
  });
});
