/** The two SQL dialects the store speaks. */
export type Dialect = 'sqlite' | 'postgres';
