/**
 * CASES C34: the bearer token of Chat app events, in both audience modes, checked against keys
 * the fake serves on 127.0.0.1 — issuer, audience, expiry, signer and the service-account email
 * bound exactly; a refused delivery is a 401 and leaves nothing in the store.
 */
import { createHmac } from "node:crypto";
import { eventually } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { CHAT_ISSUER_EMAIL, googleChatConfigSchema } from "./config.ts";
import {
  ALICE,
  FAKE_ENDPOINT_URL,
  FAKE_PROJECT_NUMBER,
  type FakeGoogleChatOptions,
} from "./testing/FakeGoogleChat.ts";
import { FakeSigningKey, type FakeTokenClaims } from "./testing/fakeTokens.ts";
import { type GoogleChatRun, openGoogleChatRun } from "./testing/fixture.ts";
import { createBearerVerifier, createWebhookReceiver } from "./webhook.ts";

let open: GoogleChatRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const ENDPOINT: FakeGoogleChatOptions = {
  audience: { type: "endpoint_url", url: FAKE_ENDPOINT_URL },
};
const PROJECT: FakeGoogleChatOptions = {
  audience: { type: "project_number", projectNumber: FAKE_PROJECT_NUMBER },
};

async function start(fake: FakeGoogleChatOptions) {
  open = await openGoogleChatRun({ fake, receiver: true });
  return open;
}

/** A MESSAGE event in a fresh space, not stored on the fake (only delivered). */
function eventIn(t: GoogleChatRun, text: string) {
  const space = t.fake.createSpace().name;
  const message = t.fake.store.add({
    space,
    thread: t.fake.store.newThread(space),
    sender: ALICE,
    text,
  });
  return { event: t.fake.messageEvent(message), name: message.name };
}

async function expectRefused(
  t: GoogleChatRun,
  options: { claims?: FakeTokenClaims; token?: string | null; key?: FakeSigningKey },
) {
  const { event } = eventIn(t, "refused");
  const response = await t.fake.post(event, options);
  expect(response.status).toBe(401);
  expect(t.run.deliveries).toBe(0);
  expect(await t.run.store.listDeadLetters()).toEqual([]);
  expect(await t.run.store.listIntents({ limit: 10 })).toEqual([]);
}

describe("C34: bearer token audiences", () => {
  it("C34 (a): audience = endpoint URL, a Google-signed ID token from chat@system.gserviceaccount.com: 200 and dispatched", async () => {
    const t = await start(ENDPOINT);
    const { event, name } = eventIn(t, "hello");
    const response = await t.fake.post(event);
    expect(response.status).toBe(200);
    await eventually(
      () => t.run.handled,
      (h) => h.length === 1,
    );
    expect(t.run.handled[0]?.input.platformMessageId).toBe(name);
  });

  it("C34 (b): audience = project number, a JWT from chat@system.gserviceaccount.com: 200 and dispatched", async () => {
    const t = await start(PROJECT);
    const { event, name } = eventIn(t, "hello");
    expect((await t.fake.post(event)).status).toBe(200);
    await eventually(
      () => t.run.handled,
      (h) => h.length === 1,
    );
    expect(t.run.handled[0]?.input.platformMessageId).toBe(name);
  });

  describe("C34 (c): refused with 401, nothing recorded", () => {
    it("endpoint URL: wrong aud", async () => {
      await expectRefused(await start(ENDPOINT), {
        claims: { aud: "https://evil.test/googlechat" },
      });
    });
    it("endpoint URL: expired", async () => {
      const past = Math.floor(Date.now() / 1_000) - 7_200;
      await expectRefused(await start(ENDPOINT), { claims: { iat: past, exp: past + 3_600 } });
    });
    it("endpoint URL: wrong issuer", async () => {
      await expectRefused(await start(ENDPOINT), { claims: { iss: "https://evil.test" } });
    });
    it("endpoint URL: another service account's email, or an unverified one", async () => {
      const t = await start(ENDPOINT);
      await expectRefused(t, { claims: { email: "attacker@evil.iam.gserviceaccount.com" } });
      await expectRefused(t, { claims: { email_verified: false } });
    });
    it("endpoint URL: signed by a key Google does not publish", async () => {
      await expectRefused(await start(ENDPOINT), { key: new FakeSigningKey() });
    });
    it("endpoint URL: Chat's project-number JWT is not an ID token", async () => {
      const t = await start(ENDPOINT);
      const token = t.fake.tokens.mint({
        type: "project_number",
        projectNumber: FAKE_PROJECT_NUMBER,
      });
      await expectRefused(t, { token });
    });
    it("project number: wrong aud", async () => {
      await expectRefused(await start(PROJECT), { claims: { aud: "999999" } });
    });
    it("project number: expired", async () => {
      const past = Math.floor(Date.now() / 1_000) - 7_200;
      await expectRefused(await start(PROJECT), { claims: { iat: past, exp: past + 3_600 } });
    });
    it("project number: wrong issuer (a Google ID token, or another account)", async () => {
      const t = await start(PROJECT);
      await expectRefused(t, { claims: { iss: "https://accounts.google.com" } });
      await expectRefused(t, { claims: { iss: `x${CHAT_ISSUER_EMAIL}` } });
    });
    it("project number: signed by a key Chat does not publish", async () => {
      await expectRefused(await start(PROJECT), { key: new FakeSigningKey() });
    });
    it("project number: a token minted for another project", async () => {
      const t = await start(PROJECT);
      const token = t.fake.tokens.mint({ type: "project_number", projectNumber: "5550001111" });
      await expectRefused(t, { token });
    });
    it("both modes: alg none, and HS256 keyed with the public certificate (algorithm confusion)", async () => {
      for (const mode of [ENDPOINT, PROJECT]) {
        const t = await start(mode);
        const key = mode === ENDPOINT ? t.fake.tokens.google : t.fake.tokens.chat;
        const good = t.fake.tokens.mint(t.fake.audience);
        const body = good.split(".")[1];
        const head = (alg: string) =>
          Buffer.from(JSON.stringify({ alg, typ: "JWT", kid: key.kid })).toString("base64url");
        const hs = `${head("HS256")}.${body}`;
        const mac = createHmac("sha256", key.publicPem).update(hs).digest("base64url");
        await expectRefused(t, { token: `${head("none")}.${body}.` });
        await expectRefused(t, { token: `${hs}.${mac}` });
        await open?.close();
        open = undefined;
      }
    });
    it("a refusal's reason never carries the token", async () => {
      const t = await start(ENDPOINT);
      const config = googleChatConfigSchema.parse({
        credentials: { type: "access_token" },
        receive: { audience: t.fake.audience, certsUrls: t.fake.certsUrls },
      }).receive;
      if (!config) throw new Error("no receive config");
      const verify = createBearerVerifier(config);
      for (const token of [
        t.fake.tokens.mint(t.fake.audience, {}, new FakeSigningKey()),
        t.fake.tokens.mint(t.fake.audience, { aud: "https://evil.test/" }),
      ]) {
        const check = await verify(`Bearer ${token}`);
        expect(check.ok).toBe(false);
        expect(JSON.stringify(check)).not.toContain(token);
      }
    });
    it("a refusal is logged with its reason, never with the token", async () => {
      const t = await start(ENDPOINT);
      const config = googleChatConfigSchema.parse({
        credentials: { type: "access_token" },
        receive: { audience: t.fake.audience, certsUrls: t.fake.certsUrls },
      }).receive;
      if (!config) throw new Error("no receive config");
      const warnings: Array<{ obj: object; msg?: string }> = [];
      const sink = t.run.sink("googlechat", "main");
      const logger = {
        ...sink.logger,
        warn: (obj: object, msg?: string) => warnings.push({ obj, ...(msg ? { msg } : {}) }),
      };
      const receiver = createWebhookReceiver(config, { ...sink, logger });
      const token = t.fake.tokens.mint(t.fake.audience, { aud: "https://evil.test/" });
      const response = await receiver.webhook(
        new Request("http://127.0.0.1/webhooks/googlechat/main", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(eventIn(t, "refused").event),
        }),
      );
      expect(response.status).toBe(401);
      expect(warnings).toHaveLength(1);
      expect(JSON.stringify(warnings)).toContain("audience");
      expect(JSON.stringify(warnings)).not.toContain(token);
      expect(t.run.deliveries).toBe(0);
    });
    it("no token, or not a bearer token", async () => {
      const t = await start(PROJECT);
      await expectRefused(t, { token: null });
      await expectRefused(t, { token: "not-a-jwt" });
    });
  });

  it("certificates are fetched again when a token names a key they lack (rotation)", async () => {
    const t = await start(PROJECT);
    const { event } = eventIn(t, "before");
    expect((await t.fake.post(event)).status).toBe(200);
    t.fake.tokens.rotate("chat");
    const second = eventIn(t, "after");
    expect((await t.fake.post(second.event)).status).toBe(200);
  });
});
