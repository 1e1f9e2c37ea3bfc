/**
 * Lookups whose key is known to be present (an index built from the same list a moment before). A miss is a
 * bug in this code, never bad input, so it throws instead of letting `undefined` turn into NaN downstream.
 */
export function mustGet<K, V>(map: ReadonlyMap<K, V>, key: K): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`internal: no entry for ${String(key)}`);
  return value;
}
