/**
 * Picks the endpoint the resolver calls for a worker, from its registration file
 * (protocols/cresolver/README.md, "Endpoint discovery": services[name="A2A"]).
 */
import type { WorkerEndpoint } from "../core/types.js";
import { describeUrlText } from "../http/errors.js";
import { RegistrationError, truncate } from "./errors.js";
import type { RegistrationFile } from "./schema.js";

/** Protocol assumed when an A2A entry names none: the spec's own examples omit it. */
export const DEFAULT_WORKER_PROTOCOL = "cresolver";

/**
 * Parses `endpoint` as an absolute http(s) URL, or returns a reason it is not one.
 * Credentials in the URL are refused: they would be sent to (and logged by) whoever we call. Messages show URLs
 * through `describeUrlText` (no userinfo, query or fragment), since they end up in logs and public bundles.
 */
export function checkHttpEndpoint(endpoint: string): { ok: true; url: URL } | { ok: false; reason: string } {
  if (endpoint !== endpoint.trim()) return { ok: false, reason: "has surrounding whitespace" };
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { ok: false, reason: "is not an absolute URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, reason: `has scheme ${truncate(url.protocol, 20)} (want http or https)` };
  }
  if (url.hostname === "") return { ok: false, reason: "has no host" };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "contains credentials" };
  return { ok: true, url };
}

/**
 * The first `services` entry named "A2A" (case-insensitive) whose protocol (default "cresolver",
 * case-insensitive) is in `supportedProtocols` and whose endpoint is an absolute http(s) URL.
 * An A2A entry with an unsupported protocol is skipped in favour of a later one. The first entry
 * with a supported protocol is the agent's choice: if its endpoint is unusable we fail rather than
 * fall through to a later entry, so a broken registration is reported instead of silently
 * routed somewhere the agent ranked lower.
 *
 * The url is returned as written (not URL-normalised, which would add a trailing "/");
 * the protocol is returned lower-case.
 */
export function pickWorkerEndpoint(
  file: RegistrationFile,
  supportedProtocols: readonly string[] = [DEFAULT_WORKER_PROTOCOL],
): WorkerEndpoint {
  // Decision: an agent that declares itself inactive is not asked, even if it lists an endpoint.
  // Only an explicit `false` counts; absent means active (the EIP makes the field optional).
  if (file.active === false) {
    throw new RegistrationError("no-endpoint", `agent "${truncate(file.name)}" is marked inactive`);
  }
  const supported = new Set(supportedProtocols.map((p) => p.toLowerCase()));
  const rejected: string[] = [];
  for (const [index, service] of file.services.entries()) {
    if (service.name.toLowerCase() !== "a2a") continue;
    const protocol = (service.protocol ?? DEFAULT_WORKER_PROTOCOL).toLowerCase();
    if (!supported.has(protocol)) {
      rejected.push(`services[${index}] protocol "${truncate(protocol, 40)}" not supported`);
      continue;
    }
    const check = checkHttpEndpoint(service.endpoint);
    if (!check.ok) {
      throw new RegistrationError(
        "no-endpoint",
        `services[${index}] (A2A, ${truncate(protocol, 40)}) endpoint ${check.reason}: "${describeUrlText(service.endpoint)}"`,
      );
    }
    return { url: service.endpoint, protocol };
  }
  const why = rejected.length > 0 ? `: ${rejected.slice(0, 3).join("; ")}` : "";
  throw new RegistrationError(
    "no-endpoint",
    `no usable A2A service (protocols: ${[...supported].map((p) => truncate(p, 40)).join(", ") || "none"})${why}`,
  );
}
