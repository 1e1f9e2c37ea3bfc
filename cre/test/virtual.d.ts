/** The bundled workflow JS (what `cre-compile` hands to Javy), built on demand by vitest.config.ts. */
declare module "virtual:cre-bundle" {
  const code: string;
  export default code;
}
