/**
 * The hook through which a fake platform's traffic is checked against the platform's published
 * API description (STYLE.md "A fake is a claim about the platform"). A {@link FakePlatformServer}
 * created with a `platform` name hands every request it receives and every answer it returns to
 * the check registered for that name; the check's violations are kept until a test harness takes
 * them (herald's own suites fail the test that caused them, in an `afterEach`).
 *
 * Runner-free and description-free: what a description says lives with whoever registers the
 * check (herald's repository registers its vendored descriptions in its Vitest setup).
 *
 * @module
 */

/** One request a fake received and the answer it returned, as bytes on the wire. */
export type FakeExchange = {
  /** The `platform` name the server was created with, e.g. `"discord"`. */
  platform: string;
  /** Upper case, e.g. `"POST"`. */
  method: string;
  /** URL path, e.g. `/api/v10/channels/1/messages`. */
  path: string;
  query: URLSearchParams;
  requestHeaders: Headers;
  /** The request body as text (`""` when there is none). */
  requestBody: string;
  status: number;
  responseHeaders: Headers;
  /** The answer's body as text; `undefined` when it is a stream that was not read. */
  responseBody: string | undefined;
  /**
   * The answer is a scripted fault's own `body`: the test's words, not the fake's claim about
   * the platform (a malformed answer a plugin must survive). Checks skip such answers.
   */
  scriptedAnswer: boolean;
};

/** Something a fake received or answered that its platform's description does not allow. */
export type FakeTrafficViolation = {
  platform: string;
  /** The operation in the description, e.g. `createMessage`, or the method and path when none matched. */
  operation: string;
  /** `request` or `response`. */
  side: "request" | "response";
  /** JSON pointer of the offending field, e.g. `/author/id` (`""` for the whole body). */
  field: string;
  message: string;
  /** The call, e.g. `POST /api/v10/channels/1/messages -> 200`. */
  call: string;
};

/** Checks one exchange; returns what it found wrong (empty when it conforms). */
export type FakeTrafficCheck = (
  exchange: FakeExchange,
) => readonly FakeTrafficViolation[] | Promise<readonly FakeTrafficViolation[]>;

type Registry = {
  checks: Map<string, FakeTrafficCheck>;
  violations: FakeTrafficViolation[];
  scripted: WeakSet<Response>;
};

// One registry per process, on globalThis: the fakes and the harness that registers checks may
// load this module through different specifiers (source and dist), and must still meet.
const KEY = Symbol.for("herald.fakeTraffic");

function registry(): Registry {
  const g = globalThis as { [KEY]?: Registry };
  g[KEY] ??= { checks: new Map(), violations: [], scripted: new WeakSet() };
  return g[KEY];
}

/**
 * Registers the check run on every exchange of the fakes created with `platform` (replacing any
 * earlier one); `undefined` removes it.
 */
export function setFakeTrafficCheck(platform: string, check: FakeTrafficCheck | undefined): void {
  if (check) registry().checks.set(platform, check);
  else registry().checks.delete(platform);
}

/** The check registered for `platform`, if any. */
export function fakeTrafficCheck(platform: string): FakeTrafficCheck | undefined {
  return registry().checks.get(platform);
}

/** @internal Records violations found on an exchange. */
export function recordFakeTrafficViolations(found: readonly FakeTrafficViolation[]): void {
  registry().violations.push(...found);
}

/**
 * Marks an answer a test scripted word for word (a malformed body, a proxy's HTML page) so
 * traffic checks skip it: it is the test's input, not the fake's claim about the platform.
 * @returns `response`
 */
export function scriptedAnswer(response: Response): Response {
  registry().scripted.add(response);
  return response;
}

/** Whether {@link scriptedAnswer} marked `response`. */
export function isScriptedAnswer(response: Response): boolean {
  return registry().scripted.has(response);
}

/** Returns the violations recorded since the last call, and forgets them. */
export function takeFakeTrafficViolations(): FakeTrafficViolation[] {
  const r = registry();
  const taken = r.violations;
  r.violations = [];
  return taken;
}

/** One line per violation: `discord createMessage response /author/id: must be string (POST … -> 200)`. */
export function formatFakeTrafficViolation(v: FakeTrafficViolation): string {
  return `${v.platform} ${v.operation} ${v.side} ${v.field || "(body)"}: ${v.message} (${v.call})`;
}
