/** Standard base64 (RFC 4648 §4, padded) without Node's Buffer: the CRE runtime has none. Strict on decode. */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const VALUE = new Map([...ALPHABET].map((c, i) => [c, i]));

export function base64Encode(bytes: Uint8Array): string {
  let out = "";
  const digit = (v: number): string => ALPHABET.charAt(v & 63);
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += digit(n >> 18) + digit(n >> 12);
    out += i + 1 < bytes.length ? digit(n >> 6) : "=";
    out += i + 2 < bytes.length ? digit(n) : "=";
  }
  return out;
}

export function base64Decode(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new RangeError("base64 length is not a multiple of 4");
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const c = text.charAt(i + j);
      const last = i + 4 === text.length;
      const v = c === "=" && last && j >= 4 - pad ? 0 : VALUE.get(c);
      if (v === undefined) throw new RangeError(`invalid base64 character at ${i + j}`);
      n = (n << 6) | v;
    }
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
