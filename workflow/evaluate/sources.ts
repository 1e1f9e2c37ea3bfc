/**
 * Source plausibility for the rubric (SQ, ES, T): which cited sources count, deduplicated by `sourceKey`.
 * A source is plausible when it is an http(s) URL with a public-looking hostname: not an IP literal, not
 * localhost/.local/.internal/reserved example domains, no credentials, no instruction-like text, not a
 * duplicate. Pure and deterministic.
 */
import { cleanForScoring, normalizeForAnalysis } from "../core/text.js";
import { sourceKey } from "./view.js";

export interface SourceCheck {
  ok: boolean;
  https: boolean;
  /** Registrable-domain approximation (last 2 labels, or 3 for e.g. bbc.co.uk). */
  domain?: string;
  reason?: string;
}

const RESERVED_SUFFIXES = [
  ".localhost",
  ".local",
  ".internal",
  ".lan",
  ".home.arpa",
  ".test",
  ".invalid",
  ".example",
  ".onion",
  ".corp",
  ".intranet",
];
const RESERVED_HOSTS = new Set(["localhost", "example.com", "example.org", "example.net"]);
const SECOND_LEVEL = new Set(["co", "com", "org", "net", "gov", "ac", "edu", "or", "ne", "go", "gob", "nic"]);

function registrable(host: string): string {
  const labels = host.split(".");
  if (labels.length >= 3 && labels.at(-1)?.length === 2 && SECOND_LEVEL.has(labels.at(-2) ?? "")) {
    return labels.slice(-3).join(".");
  }
  return labels.slice(-2).join(".");
}

/** Checks one source string for plausibility. `seen` holds dedupe keys of earlier sources. */
export function checkSource(raw: string, seen: Set<string>, ignore?: ReadonlySet<string>): SourceCheck {
  const s = normalizeForAnalysis(String(raw), 4_096).trim();
  const bad = (reason: string): SourceCheck => ({ ok: false, https: false, reason });
  if (s.length === 0) return bad("empty");
  if (s.length > 2_048) return bad("too long");
  if (cleanForScoring(s, undefined, ignore).injected) return bad("instruction-like text");
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return bad("not a URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return bad("not http(s)");
  if (url.username || url.password) return bad("credentials in URL");
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[") || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return bad("IP literal");
  if (
    RESERVED_HOSTS.has(host) ||
    RESERVED_SUFFIXES.some((x) => host.endsWith(x)) ||
    [...RESERVED_HOSTS].some((h) => host.endsWith(`.${h}`))
  ) {
    return bad("local or reserved host");
  }
  const labels = host.split(".");
  const tld = labels.at(-1) ?? "";
  if (
    labels.length < 2 ||
    labels.some((l) => l.length === 0 || l.length > 63) ||
    !/^([a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(tld)
  ) {
    return bad("implausible hostname");
  }
  const key = sourceKey(s);
  if (seen.has(key)) return bad("duplicate");
  seen.add(key);
  return { ok: true, https: url.protocol === "https:", domain: registrable(host.replace(/^www\./, "")) };
}

export interface SourceStats {
  total: number;
  plausible: number;
  /** The plausible sources themselves, in order. */
  accepted: string[];
  domains: number;
  https: number;
  rejected: Record<string, number>;
}

export function sourceStats(sources: readonly string[], ignore?: ReadonlySet<string>): SourceStats {
  const list = (Array.isArray(sources) ? sources : []).slice(0, 100);
  const seen = new Set<string>();
  const domains = new Set<string>();
  const rejected: Record<string, number> = {};
  let plausible = 0;
  let https = 0;
  const accepted: string[] = [];
  for (const src of list) {
    const c = checkSource(typeof src === "string" ? src : "", seen, ignore);
    if (c.ok) {
      plausible += 1;
      accepted.push(src);
      if (c.https) https += 1;
      if (c.domain) domains.add(c.domain);
    } else {
      rejected[c.reason ?? "invalid"] = (rejected[c.reason ?? "invalid"] ?? 0) + 1;
    }
  }
  return { total: list.length, plausible, accepted, domains: domains.size, https, rejected };
}
