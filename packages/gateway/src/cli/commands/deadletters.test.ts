/**
 * `herald deadletters ls|show`: the unreadable inbound events are visible to an operator, with
 * the error that made each one and the raw event (secrets redacted).
 */
import { SqliteStateStore } from "@herald/core";
import { afterEach, describe, expect, it } from "vitest";
import { CliUsageError } from "../cliErrors.ts";
import { deadLetterShow, deadLettersList } from "./deadletters.ts";

const sink = () => {
  const o = {
    text: "",
    write: (t: string) => {
      o.text += t;
    },
  };
  return o;
};
let store: SqliteStateStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe("herald deadletters", () => {
  it("lists each dead letter with its error and shows the raw event, redacted", async () => {
    store = new SqliteStateStore({ path: ":memory:" });
    const letter = await store.putDeadLetter({
      channel: "telegram",
      accountId: "main",
      raw: { update_id: 7, note: "token 123:SECRET" },
      error: { name: "ZodError", message: "message.chat: expected object", code: "invalid_update" },
      receivedAt: Date.now() - 5_000,
    });
    const redact = (t: string) => t.replaceAll("123:SECRET", "[redacted]");
    const ls = sink();
    await deadLettersList(store, {}, redact, ls);
    expect(ls.text).toContain(letter.id);
    expect(ls.text).toContain("telegram/main");
    expect(ls.text).toContain("invalid_update: message.chat: expected object");
    expect(ls.text).toMatch(/1 dead letter\(s\)/);

    const show = sink();
    expect(await deadLetterShow(store, letter.id, redact, show)).toBe(true);
    expect(show.text).toContain('"update_id": 7');
    expect(show.text).toContain("[redacted]");
    expect(show.text).not.toContain("SECRET");
    expect(await deadLetterShow(store, "nope", redact, sink())).toBe(false);
  });

  it("says when there are none, and refuses an unknown status", async () => {
    store = new SqliteStateStore({ path: ":memory:" });
    const out = sink();
    await deadLettersList(store, {}, undefined, out);
    expect(out.text).toMatch(/no dead letters/);
    await expect(deadLettersList(store, { status: "nwe" })).rejects.toBeInstanceOf(CliUsageError);
  });
});
