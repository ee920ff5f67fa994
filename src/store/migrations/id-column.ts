/**
 * The integer primary key every table uses, in each dialect's words. Shared by migrations, so it
 * must never change: a released migration has to create exactly what it created before.
 */
import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../dialect.js';

export function withIdColumn<Table extends string>(table: CreateTableBuilder<Table>, dialect: Dialect) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (column) => column.primaryKey())
    : table.addColumn('id', 'integer', (column) => column.primaryKey().autoIncrement());
}
