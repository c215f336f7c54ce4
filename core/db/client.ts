import postgres from 'postgres';

export type Db = postgres.Sql;
/** The pool or a transaction: what a store function takes when its caller may hold a transaction. */
export type Sql = postgres.Sql | postgres.TransactionSql;

export function createDb(url: string, options: { max?: number } = {}): Db {
  return postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connect_timeout: 5,
    // Store timestamps as timestamptz and hand them back as Date.
    transform: { undefined: null },
  });
}
