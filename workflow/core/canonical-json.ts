/**
 * The canonical JSON of a resolution bundle (bundle.ts) and its hash, the on-chain `bundleHash`.
 *
 * Canonical form (`canonicalJson`):
 *   - object keys sorted at every level by UTF-16 code units (JavaScript's default sort, the order
 *     RFC 8785 uses); arrays keep their order; no whitespace;
 *   - strings and numbers serialized by JSON.stringify (ECMAScript shortest round-trip for numbers,
 *     -0 → 0); numbers must be finite;
 *   - bigint → decimal string; `undefined` object members are omitted; `undefined`, functions,
 *     symbols, non-plain objects (Map, Date, class instances) and cycles are rejected (TypeError).
 */
import { keccak256, stringToBytes, type Hex } from "viem";

/** Serializes a JSON-like value canonically (see module doc). Throws TypeError on non-JSON input. */
export function canonicalJson(value: unknown): string {
  const stack = new Set<object>();
  const enc = (v: unknown, path: string): string => {
    switch (typeof v) {
      case "string":
        return JSON.stringify(v);
      case "boolean":
        return v ? "true" : "false";
      case "bigint":
        return JSON.stringify(v.toString(10));
      case "number":
        if (!Number.isFinite(v)) throw new TypeError(`canonicalJson: non-finite number at ${path}`);
        return JSON.stringify(v);
      case "object": {
        if (v === null) return "null";
        if (stack.has(v)) throw new TypeError(`canonicalJson: cycle at ${path}`);
        stack.add(v);
        try {
          if (Array.isArray(v)) {
            return `[${v
              .map((item, i) => {
                if (item === undefined) throw new TypeError(`canonicalJson: undefined at ${path}[${i}]`);
                return enc(item, `${path}[${i}]`);
              })
              .join(",")}]`;
          }
          const proto = Object.getPrototypeOf(v);
          if (proto !== Object.prototype && proto !== null)
            throw new TypeError(`canonicalJson: non-plain object at ${path}`);
          const keys = Object.keys(v).sort();
          const parts: string[] = [];
          for (const k of keys) {
            const item = (v as Record<string, unknown>)[k];
            if (item === undefined) continue;
            parts.push(`${JSON.stringify(k)}:${enc(item, `${path}.${k}`)}`);
          }
          return `{${parts.join(",")}}`;
        } finally {
          stack.delete(v);
        }
      }
      default:
        throw new TypeError(`canonicalJson: unsupported ${typeof v} at ${path}`);
    }
  };
  return enc(value, "$");
}

/** keccak256 of the UTF-8 bytes of the canonical JSON text. */
export function bundleHash(json: string): Hex {
  return keccak256(stringToBytes(json));
}
