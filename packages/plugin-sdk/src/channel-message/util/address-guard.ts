/**
 * Which network addresses a fetch made on a user's behalf may reach (DESIGN §11): only public
 * unicast ones. Refused: loopback (`127/8`, `::1`), unspecified (`0.0.0.0`, `::`), private
 * (`10/8`, `172.16/12`, `192.168/16`), link-local (`169.254/16` — cloud metadata —, `fe80::/10`),
 * unique-local (`fc00::/7`), carrier-grade NAT (`100.64/10`), multicast, broadcast, reserved
 * and documentation ranges, and the IPv6 forms that embed an IPv4 address (`::ffff:127.0.0.1`
 * is judged as `127.0.0.1`; NAT64, 6to4 and Teredo are refused outright). Ranges come from
 * `ipaddr.js`.
 *
 * @module
 */
import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

/**
 * Whether `address` (an IP literal, IPv6 with or without brackets) is public unicast.
 * @returns false for anything that is not a valid IP address.
 * @example isPublicAddress("::ffff:127.0.0.1") // false
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === "unicast";
}

/** Resolves a host name to every address it has. */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver (`dns.lookup`, every address, in the resolver's order). */
export const systemResolver: HostResolver = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `http.request` / `net.connect` that resolves with `resolve` and fails the
 * connection when any resolved address is refused by `allowed` — checked on the addresses the
 * socket will actually connect to, so a name that resolves to a private address (or rebinds to
 * one between two lookups) is refused.
 *
 * @param refuse - builds the error for a refused address.
 */
export function guardedLookup(
  resolve: HostResolver,
  allowed: (hostname: string, address: string) => boolean,
  refuse: (hostname: string, address: string) => Error,
) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void => {
    resolve(hostname).then(
      (found) => {
        const family = Number(options.family) || 0;
        const addresses = family ? found.filter((a) => a.family === family) : found;
        const bad = addresses.find((a) => !allowed(hostname, a.address));
        const first = addresses[0];
        if (bad) return callback(refuse(hostname, bad.address), "");
        if (!first) {
          const error: NodeJS.ErrnoException = new Error(`no address for ${hostname}`);
          error.code = "ENOTFOUND";
          return callback(error, "");
        }
        if (options.all) return callback(null, addresses);
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  };
}
