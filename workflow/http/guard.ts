/**
 * Destination guard: decides whether an outbound connection to an address is allowed.
 *
 * Worker endpoints and registration URLs are chosen by untrusted agents, so every address a
 * connection could go to is classified here. Loopback and private ranges are refused unless the
 * configuration explicitly allows them (tests and the local demo allow loopback only); link-local
 * (169.254/16 holds cloud metadata), multicast, unspecified, broadcast and reserved ranges are
 * always refused. IPv6 forms that embed an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, the deprecated
 * IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96 and 6to4 2002::/16) are judged by the embedded
 * address; Teredo (2001::/32), ORCHID (2001:10::/28, 2001:20::/28) and benchmarking (2001:2::/48) are reserved. Pure: no I/O here; the client does the DNS resolution and pins the socket to the
 * addresses checked here (see client.ts).
 */
import { isIP } from "node:net";
import { DestinationRefusedError } from "./errors.js";

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "multicast"
  | "unspecified"
  | "broadcast"
  | "reserved";

export interface DestinationPolicy {
  /** 127/8 and ::1 (and their IPv6-embedded forms). */
  allowLoopback?: boolean;
  /** 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT), fc00::/7, fec0::/10 (and embedded forms). */
  allowPrivate?: boolean;
}

type V4Rule = [base: number, prefix: number, cls: AddressClass];

const v4 = (a: number, b: number, c: number, d: number): number => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

/** First match wins, so the more specific rules come first. */
const V4_RULES: V4Rule[] = [
  [v4(255, 255, 255, 255), 32, "broadcast"],
  [v4(0, 0, 0, 0), 8, "unspecified"], // "this network"; 0.0.0.0 itself reaches the local host on Linux
  [v4(127, 0, 0, 0), 8, "loopback"],
  [v4(10, 0, 0, 0), 8, "private"],
  [v4(172, 16, 0, 0), 12, "private"],
  [v4(192, 168, 0, 0), 16, "private"],
  [v4(100, 64, 0, 0), 10, "private"], // CGNAT, RFC 6598
  [v4(169, 254, 0, 0), 16, "link-local"], // includes 169.254.169.254 (cloud metadata)
  [v4(224, 0, 0, 0), 4, "multicast"],
  [v4(240, 0, 0, 0), 4, "reserved"], // class E
  [v4(192, 0, 0, 0), 24, "reserved"], // IETF protocol assignments (e.g. 192.0.0.192 metadata on some clouds)
  [v4(192, 0, 2, 0), 24, "reserved"], // TEST-NET-1
  [v4(198, 51, 100, 0), 24, "reserved"], // TEST-NET-2
  [v4(203, 0, 113, 0), 24, "reserved"], // TEST-NET-3
  [v4(198, 18, 0, 0), 15, "reserved"], // benchmarking
  [v4(192, 88, 99, 0), 24, "reserved"], // deprecated 6to4 relay anycast
];

function classifyV4(n: number): AddressClass {
  for (const [base, prefix, cls] of V4_RULES) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if ((n & mask) >>> 0 === base) return cls;
  }
  return "public";
}

function parseV4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    n = n * 256 + octet;
  }
  return n;
}

/** An IPv6 address as its 8 groups of 16 bits. */
type V6Groups = readonly [number, number, number, number, number, number, number, number];

function isV6Groups(groups: readonly number[]): groups is V6Groups {
  return groups.length === 8;
}

/** 8 groups of 16 bits, or undefined if not an IPv6 literal (zone ids are stripped by the caller). */
function parseV6(text: string): V6Groups | undefined {
  let head = text;
  let tailV4: number[] = [];
  const lastColon = head.lastIndexOf(":");
  if (head.slice(lastColon + 1).includes(".")) {
    const n = parseV4(head.slice(lastColon + 1));
    if (n === undefined) return undefined;
    tailV4 = [n >>> 16, n & 0xffff];
    head = head.slice(0, lastColon + 1);
    if (head.endsWith(":") && !head.endsWith("::")) head = head.slice(0, -1);
  }
  const [first = "", second, ...more] = head.split("::");
  if (more.length > 0) return undefined;
  const toGroups = (s: string): number[] | undefined => {
    if (s === "") return [];
    const out: number[] = [];
    for (const g of s.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = toGroups(first);
  if (left === undefined) return undefined;
  if (second === undefined) {
    const groups = [...left, ...tailV4];
    return isV6Groups(groups) ? groups : undefined;
  }
  const right = toGroups(second);
  if (right === undefined) return undefined;
  const used = left.length + right.length + tailV4.length;
  if (used > 7) return undefined;
  const groups = [...left, ...new Array<number>(8 - used).fill(0), ...right, ...tailV4];
  return isV6Groups(groups) ? groups : undefined;
}

function classifyV6(g: V6Groups): AddressClass {
  const embedded = (hi: number, lo: number): AddressClass => classifyV4(((hi << 16) | lo) >>> 0);
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return "unspecified";
  if (zeros(0, 7) && g[7] === 1) return "loopback";
  // IPv4-mapped ::ffff:a.b.c.d
  if (zeros(0, 5) && g[5] === 0xffff) return embedded(g[6], g[7]);
  // IPv4-translated ::ffff:0:a.b.c.d (RFC 2765)
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return embedded(g[6], g[7]);
  // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks)
  if (zeros(0, 6)) return embedded(g[6], g[7]);
  // NAT64 well-known prefix 64:ff9b::/96 and local-use 64:ff9b:1::/48
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return embedded(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "reserved";
  // 6to4 2002:AABB:CCDD::/48 embeds AA.BB.CC.DD
  if (g[0] === 0x2002) return embedded(g[1], g[2]);
  if ((g[0] & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfec0) return "private"; // fec0::/10 site-local (deprecated)
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local"; // fe80::/10
  if ((g[0] & 0xff00) === 0xff00) return "multicast"; // ff00::/8
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "reserved"; // documentation
  // Teredo 2001::/32 tunnels to an (obfuscated) IPv4 client behind a relay: where it lands is not ours to judge.
  if (g[0] === 0x2001 && g[1] === 0x0000) return "reserved";
  // ORCHID 2001:10::/28 (deprecated) and ORCHIDv2 2001:20::/28: identifiers, not routable addresses.
  if (g[0] === 0x2001 && ((g[1] & 0xfff0) === 0x0010 || (g[1] & 0xfff0) === 0x0020)) return "reserved";
  if (g[0] === 0x2001 && g[1] === 0x0002 && g[2] === 0) return "reserved"; // benchmarking 2001:2::/48
  if (g[0] === 0x0100 && zeros(1, 4)) return "reserved"; // discard-only 100::/64
  if (zeros(0, 1) && !zeros(0, 8)) return "reserved"; // rest of ::/16 (unassigned, e.g. ::2)
  return "public";
}

/** Classifies an IP literal (IPv4 dotted-quad, or IPv6 with or without brackets/zone id). */
export function classifyAddress(address: string): AddressClass | undefined {
  let text = address;
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const family = isIP(text);
  if (family === 4) {
    const n = parseV4(text);
    return n === undefined ? undefined : classifyV4(n);
  }
  if (family === 6) {
    const groups = parseV6(text);
    // isIP accepted it, our parser did not: refuse rather than guess.
    return groups === undefined ? "reserved" : classifyV6(groups);
  }
  return undefined;
}

export function isAllowedClass(cls: AddressClass, policy: DestinationPolicy): boolean {
  switch (cls) {
    case "public":
      return true;
    case "loopback":
      return policy.allowLoopback === true;
    case "private":
      return policy.allowPrivate === true;
    default:
      return false;
  }
}

/** Throws DestinationRefusedError unless the IP literal is allowed under the policy. */
export function assertAddressAllowed(address: string, policy: DestinationPolicy, host?: string): void {
  const cls = classifyAddress(address);
  if (cls === undefined) throw new DestinationRefusedError(`not an IP address: ${short(address)}`);
  if (!isAllowedClass(cls, policy)) {
    const via = host !== undefined && host !== address ? ` (${short(host)} resolves to it)` : "";
    throw new DestinationRefusedError(`destination ${short(address)} is ${cls}${via}; refused`);
  }
}

/**
 * The host of a URL as Node's WHATWG parser normalised it (so `http://2130706433/`,
 * `http://0x7f.1/` and `http://[::ffff:127.0.0.1]/` arrive here as `127.0.0.1` / `[::ffff:7f00:1]`),
 * checked when it is a literal IP. Returns the host to resolve when it is a name.
 */
export function checkUrlHost(url: URL, policy: DestinationPolicy): { literal: boolean; host: string } {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (host === "") throw new DestinationRefusedError("URL has no host");
  if (isIP(host) !== 0) {
    assertAddressAllowed(host, policy);
    return { literal: true, host };
  }
  return { literal: false, host };
}

function short(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
