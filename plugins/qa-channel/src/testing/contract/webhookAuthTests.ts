/**
 * Contract tests: webhook authentication (forged, missing and stale signatures are refused
 * before anything reaches herald) and secrets (no declared secret in a log line or a stored
 * failure, even after auth failures and platform errors that echo it; DESIGN §11).
 *
 * @module
 */
import { expect } from "vitest";
import { declaredSecrets } from "./harnessChecks.ts";
import { inboundRun, outcomeFor } from "./inboundRun.ts";
import type { ContractSuite } from "./registry.ts";
import { openRun, settled } from "./setup.ts";
import type { ContractForgeKind } from "./types.ts";

const FORGE_KINDS: readonly ContractForgeKind[] = ["forged", "missing", "stale"];

const FORGE_TITLES: Record<ContractForgeKind, string> = {
  forged: "signed with the wrong secret",
  missing: "without a signature",
  stale: "correctly signed but outside the replay window",
};

/** Registers the webhook authentication (`receive`) and `secrets` tests. */
export function webhookAuthTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (suite.has("receive"))
    describe("webhook authentication", () => {
      for (const kind of FORGE_KINDS) {
        test(
          `receive.webhook-auth-${kind}`,
          `a webhook delivery ${FORGE_TITLES[kind]} is answered 401 and leaves the store untouched`,
          async (ctx) => {
            const run = await inboundRun(h, ctx, { platform: { receive: "webhook" } });
            const forge = run.inbound.forge?.bind(run.inbound);
            ctx.skip(!forge, "the channel has no authenticated webhook (inbound.forge)");
            ctx.skip(
              !(run.inbound.forgeKinds ?? FORGE_KINDS).includes(kind),
              `the platform's webhook scheme has no ${kind} signature (inbound.forgeKinds)`,
            );
            const target = await run.platform.createTarget("group");
            const response = await (forge as NonNullable<typeof forge>)(kind, target);
            expect(response.status, `a ${kind} signature`).toBe(401);
            // An operator can tell why genuine events are refused (a wrong secret): one line per
            // refusal, never the secret itself ([H28] C49; the secrets test greps for it).
            expect(
              run.logLines.filter((l) => l.includes("(401)")),
              "the refusal is logged",
            ).toHaveLength(1);
            expect(run.deliveries, "nothing reached herald's sink").toBe(0);
            expect(await run.store.listDeadLetters()).toEqual([]);
            // The real path still works: the refusal was about the signature, not the receiver.
            const real = await run.inbound.post(target, { text: "a genuine delivery" });
            expect((await outcomeFor(run, real.platformMessageId)).status).toBe("processed");
            expect(run.handled.map((t) => t.input.platformMessageId)).toEqual([
              real.platformMessageId,
            ]);
          },
        );
      }
    });

  if (suite.has("secrets"))
    describe("secrets", () => {
      test(
        "secrets.never-logged",
        "no log line or stored failure contains a declared secret, after auth failures and platform errors that echo it",
        async (ctx) => {
          const secrets = declaredSecrets(h);
          ctx.skip(secrets.length === 0, "the harness declares the channel has no secrets ([])");
          const run = await openRun(h, { platform: { receive: "webhook" } });
          const inbound = run.platform.inbound;
          if (inbound && h.createReceiver) await run.startReceiver();
          const target = await run.platform.createTarget("direct");
          // Platforms echo the credential of the call (a token in a URL, a header quoted back).
          const echo = `invalid credentials: ${secrets[0]}`;

          // A terminal auth error whose platform description echoes the secrets.
          run.platform.faults.failNext(
            { kind: "status", status: 401, code: "unauthorized", description: echo },
            { op: "send" },
          );
          await run.runtime
            .send(run.message(target, "refused"), { idempotencyKey: "secret-refused" })
            .catch(() => {});
          expect((await settled(run, "secret-refused")).status).toBe("failed");
          // A transient error echoing them (logged while retried), then success.
          run.platform.faults.failNext(
            { kind: "status", status: 500, code: "internal", description: echo },
            { op: "send" },
          );
          await run.runtime
            .send(run.message(target, "retried"), { idempotencyKey: "secret-retried" })
            .catch(() => {});
          await settled(run, "secret-retried");
          // Webhook auth failures (the receiver logs or refuses them).
          if (inbound?.forge) {
            for (const kind of inbound.forgeKinds ?? FORGE_KINDS) {
              expect((await inbound.forge(kind, target)).status).toBe(401);
            }
          }

          const stored = [
            ...(await run.store.listIntents({ limit: 1_000 })),
            ...(await run.store.listDeadLetters()),
          ].map((x) => JSON.stringify(x));
          expect(run.logLines.length, "the run logged something to search").toBeGreaterThan(0);
          for (const secret of secrets) {
            expect(
              run.logLines.filter((l) => l.includes(secret)),
              "log lines with a secret",
            ).toEqual([]);
            expect(
              stored.filter((l) => l.includes(secret)),
              "stored records with a secret",
            ).toEqual([]);
          }
        },
      );
    });
}
