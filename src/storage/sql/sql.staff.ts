// Staff accounts and their sessions (staff, staff_sessions).
import type { Staff } from '../../staff/staff.schemas.ts';
import type { PasskeyCreate, StaffChange, StaffCreate, StaffRepository, StaffTx, StoredPasskey, StoredSession, StoredStaff } from '../../staff/staff.store.ts';
import {
  PASSKEY_COLUMNS,
  SESSION_COLUMNS,
  STAFF_COLUMNS,
  STORED_STAFF_COLUMNS,
  toStaff,
  toStoredPasskey,
  toStoredSession,
  toStoredStaff,
  type PasskeyRow,
  type SessionRow,
  type StaffRow,
} from '../rows.ts';
import { first, perDialect, type Dialect, type SqlDb, type SqlParam } from './sql.db.ts';

const GET = `SELECT ${STAFF_COLUMNS} FROM staff WHERE id = $1`;
const BY_EMAIL = `SELECT ${STORED_STAFF_COLUMNS} FROM staff WHERE email = $1`;
const SESSION = `SELECT ${SESSION_COLUMNS} FROM staff_sessions s JOIN staff p ON p.id = s.staff_id WHERE s.token_hash = $1`;
const OPEN_SESSIONS = `SELECT ${SESSION_COLUMNS} FROM staff_sessions s JOIN staff p ON p.id = s.staff_id
  WHERE s.staff_id = $1 AND s.ended_at IS NULL AND s.expires_at > $2 ORDER BY s.id DESC LIMIT 100`;
const LOCK = perDialect((d) => `SELECT ${STORED_STAFF_COLUMNS} FROM staff WHERE id = $1 ${d.lock('FOR UPDATE')}`);
const LOCK_BY_INVITATION = perDialect((d) => `SELECT ${STORED_STAFF_COLUMNS} FROM staff WHERE invitation_hash = $1 ${d.lock('FOR UPDATE')}`);

export class SqlStaff implements StaffRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async list(q: { readonly limit: number; readonly afterId: number }): Promise<Staff[]> {
    return (await this.#db.all<StaffRow>(`SELECT ${STAFF_COLUMNS} FROM staff WHERE id > $1 ORDER BY id LIMIT $2`, [q.afterId, q.limit])).map(toStaff);
  }

  async get(id: number): Promise<Staff | undefined> {
    const row = await first<StaffRow>(this.#db, GET, [id]);
    return row && toStaff(row);
  }

  async findByEmail(email: string): Promise<StoredStaff | undefined> {
    const row = await first<StaffRow>(this.#db, BY_EMAIL, [email]);
    return row && toStoredStaff(row);
  }

  async session(tokenHash: string): Promise<StoredSession | undefined> {
    const row = await first<SessionRow>(this.#db, SESSION, [tokenHash]);
    return row && toStoredSession(row);
  }

  async sessions(staffId: number, now: Date): Promise<StoredSession[]> {
    return (await this.#db.all<SessionRow>(OPEN_SESSIONS, [staffId, now.toISOString()])).map(toStoredSession);
  }

  async count(): Promise<number> {
    return Number((await first<{ n: number }>(this.#db, 'SELECT count(*) AS n FROM staff'))!.n);
  }

  async passkeys(staffId: number): Promise<StoredPasskey[]> {
    return (await this.#db.all<PasskeyRow>(`SELECT ${PASSKEY_COLUMNS} FROM staff_passkeys WHERE staff_id = $1 ORDER BY id`, [staffId])).map(toStoredPasskey);
  }

  async passkey(credentialId: string): Promise<StoredPasskey | undefined> {
    const row = await first<PasskeyRow>(this.#db, `SELECT ${PASSKEY_COLUMNS} FROM staff_passkeys WHERE credential_id = $1`, [credentialId]);
    return row && toStoredPasskey(row);
  }
}

export class SqlStaffTx implements StaffTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async insert(input: StaffCreate, at: Date): Promise<Staff | undefined> {
    const row = await first<StaffRow>(
      this.#db,
      `INSERT INTO staff (name, email, role, state, invitation_hash, invitation_expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (email) DO NOTHING RETURNING ${STAFF_COLUMNS}`,
      [input.name, input.email, input.role, input.state, input.invitation.hash, input.invitation.expiresAt.toISOString(), at.toISOString()],
    );
    return row && toStaff(row);
  }

  async lock(id: number): Promise<StoredStaff | undefined> {
    const row = await first<StaffRow>(this.#db, LOCK(this.#d), [id]);
    return row && toStoredStaff(row);
  }

  async lockByInvitation(hash: string): Promise<StoredStaff | undefined> {
    const row = await first<StaffRow>(this.#db, LOCK_BY_INVITATION(this.#d), [hash]);
    return row && toStoredStaff(row);
  }

  async update(id: number, change: StaffChange): Promise<Staff> {
    const sets: string[] = [];
    const params: SqlParam[] = [id];
    const set = (column: string, value: SqlParam) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (change.name !== undefined) set('name', change.name);
    if (change.role !== undefined) set('role', change.role);
    if (change.state !== undefined) set('state', change.state);
    if (change.passwordHash !== undefined) set('password_hash', change.passwordHash);
    if (change.invitation !== undefined) {
      set('invitation_hash', change.invitation?.hash ?? null);
      set('invitation_expires_at', change.invitation?.expiresAt.toISOString() ?? null);
    }
    const sql = `UPDATE staff SET ${sets.join(', ')} WHERE id = $1 RETURNING ${STAFF_COLUMNS}`;
    return toStaff((await first<StaffRow>(this.#db, sql, params))!);
  }

  async signedIn(id: number, at: Date): Promise<void> {
    await this.#db.run('UPDATE staff SET last_sign_in_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }

  async activeOwners(except: number): Promise<number> {
    const row = await first<{ n: number }>(this.#db, "SELECT count(*) AS n FROM staff WHERE role = 'owner' AND state = 'active' AND id <> $1", [except]);
    return Number(row!.n);
  }

  async openSession(input: { readonly staffId: number; readonly tokenHash: string; readonly at: Date; readonly expiresAt: Date }): Promise<StoredSession> {
    const at = input.at.toISOString();
    const { id } = (await first<{ id: number }>(
      this.#db,
      'INSERT INTO staff_sessions (staff_id, token_hash, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $3, $4) RETURNING id',
      [input.staffId, input.tokenHash, at, input.expiresAt.toISOString()],
    ))!;
    const row = await first<SessionRow>(this.#db, `SELECT ${SESSION_COLUMNS} FROM staff_sessions s JOIN staff p ON p.id = s.staff_id WHERE s.id = $1`, [id]);
    return toStoredSession(row!);
  }

  async touchSession(id: number, at: Date): Promise<void> {
    await this.#db.run('UPDATE staff_sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2', [id, at.toISOString()]);
  }

  endSessions(staffId: number, at: Date, except = 0): Promise<number> {
    return this.#db.run('UPDATE staff_sessions SET ended_at = $2 WHERE staff_id = $1 AND ended_at IS NULL AND id <> $3', [staffId, at.toISOString(), except]);
  }

  async endSession(staffId: number, sessionId: number, at: Date): Promise<boolean> {
    const n = await this.#db.run('UPDATE staff_sessions SET ended_at = $3 WHERE id = $1 AND staff_id = $2 AND ended_at IS NULL', [
      sessionId,
      staffId,
      at.toISOString(),
    ]);
    return n > 0;
  }

  async forgetSessions(staffId: number, before: Date): Promise<void> {
    await this.#db.run('DELETE FROM staff_sessions WHERE staff_id = $1 AND (ended_at < $2 OR expires_at < $2)', [staffId, before.toISOString()]);
  }

  async addPasskey(input: PasskeyCreate, at: Date): Promise<StoredPasskey | undefined> {
    const row = await first<PasskeyRow>(
      this.#db,
      `INSERT INTO staff_passkeys (staff_id, credential_id, public_key, counter, transports, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (credential_id) DO NOTHING RETURNING ${PASSKEY_COLUMNS}`,
      [input.staffId, input.credentialId, input.publicKey, input.counter, input.transports.join(' '), at.toISOString()],
    );
    return row && toStoredPasskey(row);
  }

  async removePasskey(staffId: number, id: number): Promise<boolean> {
    return (await this.#db.run('DELETE FROM staff_passkeys WHERE id = $1 AND staff_id = $2', [id, staffId])) > 0;
  }

  async usedPasskey(id: number, counter: number, at: Date): Promise<void> {
    await this.#db.run('UPDATE staff_passkeys SET counter = $2, last_used_at = $3 WHERE id = $1', [id, counter, at.toISOString()]);
  }

  async saveChallenge(challenge: string, staffId: number, expiresAt: Date, now: Date): Promise<void> {
    await this.#db.run('DELETE FROM webauthn_challenges WHERE expires_at < $1', [now.toISOString()]);
    await this.#db.run('INSERT INTO webauthn_challenges (challenge, staff_id, expires_at) VALUES ($1, $2, $3)', [challenge, staffId, expiresAt.toISOString()]);
  }

  async takeChallenge(challenge: string, staffId: number): Promise<string | undefined> {
    const row = await first<{ expires_at: string }>(this.#db, 'DELETE FROM webauthn_challenges WHERE challenge = $1 AND staff_id = $2 RETURNING expires_at', [
      challenge,
      staffId,
    ]);
    return row?.expires_at;
  }
}
