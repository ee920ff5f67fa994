/**
 * Queries compiled once and run many times. Kysely builds and compiles a query's tree on every
 * call, which for the few queries every chat request runs was most of the store's JavaScript
 * time. A precompiled query is built once per database handle with a distinct stand-in value per
 * parameter, remembers where each stand-in landed in the compiled parameters, and each run only
 * puts the real values there. The SQL text stays Kysely's, so it is right for either dialect. On
 * PostgreSQL the text is also prepared once per connection (postgres-prepared-statements.ts).
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { markForPreparing } from './postgres-prepared-statements.js';

/** Stand-ins no real parameter takes: large negative integers, one per named value. */
const STAND_IN_BASE = -1_999_999_000;

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /** For each compiled parameter, the name of the value it takes, or undefined for a constant. */
  slots: (string | undefined)[];
}

export type PrecompiledRun<Tables, Row, Name extends string> = (
  db: Kysely<Tables>,
  values: Readonly<Record<Name, unknown>>,
) => Promise<Row[]>;

/**
 * A query over named values; `build` must use each stand-in it is given exactly where the value
 * belongs, as a parameter (not in `sql.raw`, a `limit` Kysely inlines, or arithmetic). The
 * stand-ins are typed `never` so they fit any column; at run time they are numbers.
 */
export function precompiledQuery<Tables, Row, Name extends string>(
  names: readonly Name[],
  build: (db: Kysely<Tables>, standIns: Readonly<Record<Name, never>>) => Compilable<Row>,
): PrecompiledRun<Tables, Row, Name> {
  const standIns = Object.fromEntries(names.map((name, index) => [name, STAND_IN_BASE - index])) as Record<Name, never>;
  const nameOf = new Map<unknown, string>(names.map((name) => [standIns[name], name]));
  const compiledFor = new WeakMap<Kysely<Tables>, Compiled<Row>>();
  return async (db, values) => {
    let compiled = compiledFor.get(db);
    if (compiled === undefined) {
      const query = build(db, standIns).compile();
      const slots = query.parameters.map((parameter) => nameOf.get(parameter));
      const unused = names.filter((name) => !slots.includes(name));
      if (unused.length > 0) throw new Error(`The precompiled query never uses ${unused.join(', ')} as a parameter.`);
      compiled = { query, slots };
      compiledFor.set(db, compiled);
      markForPreparing(query.sql);
    }
    const { query, slots } = compiled;
    const parameters = slots.map((name, index) => (name === undefined ? query.parameters[index] : values[name as Name]));
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}
