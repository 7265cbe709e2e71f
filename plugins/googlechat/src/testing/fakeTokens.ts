/**
 * Bearer tokens as Google Chat puts them on the events it posts (PLATFORMS.md §7), minted
 * locally so tests never reach Google: an RSA key pair whose public half the fake serves in the
 * certificate formats of Google's endpoints, and RS256 JWTs in both audience modes — an OIDC ID
 * token (`iss: https://accounts.google.com`, `aud`: the endpoint URL, `email`:
 * `chat@system.gserviceaccount.com`) and Chat's self-signed JWT (`iss`:
 * `chat@system.gserviceaccount.com`, `aud`: the project number).
 *
 * @module
 */
import { createSign, generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { CHAT_ISSUER_EMAIL } from "../config.ts";

const b64url = (data: string | Buffer): string => Buffer.from(data).toString("base64url");

/** Claims of a fake token; absent ones get the mode's defaults. */
export type FakeTokenClaims = {
  iss?: string;
  aud?: string;
  email?: string;
  email_verified?: boolean;
  /** Epoch seconds. @defaultValue now − 10 */
  iat?: number;
  /** Epoch seconds. @defaultValue now + 3600 */
  exp?: number;
  sub?: string;
};

/** One signing key of the fake (an RSA key pair and its key id). */
export class FakeSigningKey {
  readonly kid: string;
  readonly #privateKey: KeyObject;
  /** The public key, PEM (SPKI): what the certificate endpoints serve. */
  readonly publicPem: string;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    this.kid = randomBytes(10).toString("hex");
    this.#privateKey = privateKey;
    this.publicPem = publicKey.export({ type: "spki", format: "pem" }).toString();
  }

  /** An RS256 JWT with these claims. */
  sign(claims: Record<string, unknown>): string {
    const head = b64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid: this.kid }));
    const body = b64url(JSON.stringify(claims));
    const signer = createSign("RSA-SHA256");
    signer.update(`${head}.${body}`);
    return `${head}.${body}.${signer.sign(this.#privateKey).toString("base64url")}`;
  }
}

/** How the fake signs the tokens of its events. */
export type FakeAudience =
  | { type: "endpoint_url"; url: string }
  | { type: "project_number"; projectNumber: string };

/** The token minting side of the fake: Google's key (ID tokens) and Chat's key (JWTs). */
export class FakeChatTokens {
  google = new FakeSigningKey();
  chat = new FakeSigningKey();

  /** Replaces a signing key with a new one (key rotation): old tokens no longer verify. */
  rotate(which: "google" | "chat"): FakeSigningKey {
    const key = new FakeSigningKey();
    if (which === "google") this.google = key;
    else this.chat = key;
    return key;
  }

  /** `{ kid: pem }`, the format of `oauth2/v1/certs` and of the x509 metadata URL. */
  certs(which: "google" | "chat"): Record<string, string> {
    const key = which === "google" ? this.google : this.chat;
    return { [key.kid]: key.publicPem };
  }

  /** A token for `audience` as Chat sends it, with `claims` overriding the defaults. */
  mint(audience: FakeAudience, claims: FakeTokenClaims = {}, key?: FakeSigningKey): string {
    const now = Math.floor(Date.now() / 1_000);
    if (audience.type === "endpoint_url") {
      return (key ?? this.google).sign({
        iss: "https://accounts.google.com",
        aud: audience.url,
        email: CHAT_ISSUER_EMAIL,
        email_verified: true,
        sub: "113000000000000000001",
        azp: "113000000000000000001",
        iat: now - 10,
        exp: now + 3_600,
        ...claims,
      });
    }
    return (key ?? this.chat).sign({
      iss: CHAT_ISSUER_EMAIL,
      aud: audience.projectNumber,
      iat: now - 10,
      exp: now + 3_600,
      ...claims,
    });
  }
}
