/**
 * Teardown of what a `beforeAll` started. A suite declares `let server: TestServer;` so that its
 * tests need no checks, but when the `beforeAll` fails before assigning it, the `afterAll` still
 * runs and finds it unset. `possiblyUnset(server)?.close()` says so to the type checker, which
 * would otherwise call the `?.` needless.
 */
export function possiblyUnset<Value>(value: Value): Value | undefined {
  return value;
}
