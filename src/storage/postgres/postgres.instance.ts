import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

// The advisory lock class (first key) of instance locks; the second key is the instance's number.
// Any fixed number works; every instance must use the same one (migrations and the old events lock use others).
export const INSTANCE_LOCK_CLASS = 729_051_403;

/**
 * Whether the instance numbered by `instance` (a SQL expression) is alive: some session of this
 * database holds its lock. pg_locks lists the two-key advisory lock (k1, k2) as classid k1, objid
 * k2, objsubid 2.
 */
export const ALIVE = (instance: string) =>
  `${instance} IN (SELECT l.objid::int8 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid = ${INSTANCE_LOCK_CLASS}
    AND l.objsubid = 2 AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`;

// Keepalive settings of the lock's session, on the server's side: a holder whose machine vanished
// without closing its connection is noticed after about idle + interval × count = 11 s.
const KEEPALIVE = '-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3';

/**
 * This process, as the holder of Idempotency-Key claims and webhook delivery leases: a random
 * number, and a session-level advisory lock on it that a dedicated connection holds for as long as
 * the process lives. PostgreSQL releases the lock the moment that connection closes (the process
 * exited or was killed: the kernel closes its sockets), so another instance sees at once that the
 * claims are nobody's (ALIVE) and takes them over. If the connection breaks while the process
 * lives, it reconnects and takes the lock again; meanwhile its claims may be taken over, which the
 * claim's own checks make safe (IdempotencyTx.complete matches the holder, DeliveryTx.record the token).
 */
export class PgInstance {
  /** 1 … 2^31 − 1: fits the lock's int4 key and the claim columns' INTEGER. */
  readonly id = randomInt(1, 2 ** 31 - 1);
  readonly #url: string;
  #client: pg.Client | undefined;
  #closed = false;
  #holding: Promise<void> | undefined;

  constructor(url: string) {
    this.#url = url;
  }

  /** Takes the lock (waiting for a previous session of this same number to end); resolves once held. */
  hold(): Promise<void> {
    this.#holding ??= this.#lock().finally(() => {
      this.#holding = undefined;
    });
    return this.#holding;
  }

  async #lock(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, application_name: 'petstore instance', keepAlive: true, options: KEEPALIVE });
    client.on('error', () => {}); // 'end' follows and reconnects
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1, $2)', [INSTANCE_LOCK_CLASS, this.id]);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    this.#client = client;
    client.on('end', () => {
      if (this.#client === client) this.#client = undefined;
      void this.#reconnect();
    });
    if (this.#closed) await this.close();
  }

  async #reconnect(): Promise<void> {
    for (let delay = 250; !this.#closed && this.#client === undefined; delay = Math.min(delay * 2, 2000)) {
      try {
        await this.hold();
      } catch {
        await sleep(delay);
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
