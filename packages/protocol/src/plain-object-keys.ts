/**
 * Whether nothing has added an enumerable key to Object.prototype. Then a
 * for-in over a plain object (one whose prototype is Object.prototype)
 * yields its own keys only, and a walker may skip the per-key own-property
 * test. Cheap enough to check once per pass or per record, so a polluted
 * prototype is noticed the moment it happens.
 */
export function objectPrototypeIsClean(): boolean {
  for (const _ in Object.prototype) return false;
  return true;
}
