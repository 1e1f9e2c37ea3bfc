// whatwg-url ships no types; only its two classes are used (shims.ts), with the platform's shapes.
declare module "whatwg-url" {
  export const URL: unknown;
  export const URLSearchParams: unknown;
}
