// The delivery state machine, once for every engine: an attempt is queued by the outbox
// (webhook.subscriptions.ts), leased by a dispatcher (claimAttempts), and finished with its outcome
// (finishAttempt), which schedules the next attempt or disables an endpoint failing for too long;
// an operator can make an event due again (retryDelivery).
import { AppError, assertFound } from '../errors.ts';
import { onlyActivity, withoutEvents, write } from '../events/event.outbox.ts';
import { eventId, eventSequence } from '../events/event.schemas.ts';
import type { KeyManager } from '../keys/key.rules.ts';
import { SCOPES } from '../keys/key.types.ts';
import type { WriteContext } from '../events/event.store.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import type { LeasedAttempt, WebhookState } from './webhook.store.ts';
import { assertManages, refusal } from './webhook.access.ts';
import { destination } from './webhook.address.ts';
import type { Delivery } from './webhook.schemas.ts';

/** The error of attempts that were still pending when their endpoint was disabled. */
export const ENDPOINT_DISABLED = 'not attempted: the endpoint was disabled';
/** The error of attempts that were still pending when their endpoint's URL changed: what was owed to one URL is not sent to another. */
export const URL_CHANGED = "not attempted: the endpoint's URL changed";
/** The error of an attempt whose event was purged before it could be made. */
export const EVENT_PURGED = 'not attempted: the event is no longer kept (EVENT_RETENTION_DAYS)';

/** The error of an attempt not made because the endpoint's owner key no longer stands. */
export const OWNER_GONE = 'not sent: the API key that owns the endpoint (keyId) is revoked or expired';

/**
 * What a dispatcher asks for: due attempts, at most `max`, at most `perEndpoint` in flight per
 * endpoint and `perHost` per destination (host and port).
 */
export interface ClaimRequest {
  readonly now: Date;
  /** The claimed attempts are this dispatcher's until then; after it another may claim them again. */
  readonly leaseUntil: Date;
  /** Names this claim; only its holder can record the attempts' results. */
  readonly token: string;
  readonly max: number;
  readonly perEndpoint: number;
  readonly perHost: number;
}

/** One attempt a dispatcher now holds. */
export interface ClaimedAttempt extends Omit<LeasedAttempt, 'secret' | 'previousSecret'> {
  /** The sealed secrets that sign it: the current one, then the previous one while it still signs. */
  readonly secrets: readonly string[];
}

/**
 * Leases due attempts to one dispatcher, across every instance: each attempt to one holder, in
 * event-id order per endpoint, endpoints served least recently first, at most `perEndpoint` in
 * flight per endpoint and `perHost` per destination — so that endpoints on a slow or dead host
 * hold only that host's share of the slots, and the others' first attempts go out at once.
 */
export async function claimAttempts(storage: Storage, q: ClaimRequest): Promise<ClaimedAttempt[]> {
  // An idle dispatcher asks often: a plain read answers it without a write transaction.
  if (!(await storage.webhooks.anyDue(q.now))) return [];
  return write(storage, { now: q.now }, async (tx) => {
    const lease = { now: q.now, until: q.leaseUntil, token: q.token };
    const limits = { perEndpoint: q.perEndpoint, perHost: q.perHost };
    const hostRoom = new Map<string, number>();
    let room = q.max;
    let claimed = 0;
    // A second pass when the first skipped endpoints of a host it filled: the candidates are
    // chosen before leasing, and those of a full host are left out of the next query.
    for (let pass = 0, skipped = true; skipped && pass < 2 && room > 0; pass++) {
      skipped = false;
      for (const { id, host } of await tx.webhooks.claimable(q.now, limits, room)) {
        if (room === 0) break;
        // Counted again under the endpoint's lock: every claimer holds it while it counts and leases.
        const free = q.perEndpoint - (await tx.deliveries.inFlight(id, q.now));
        let hostFree = Number.POSITIVE_INFINITY;
        if (host !== null) hostFree = hostRoom.get(host) ?? q.perHost - (await tx.deliveries.inFlightToHost(host, q.now));
        if (hostFree <= 0) {
          skipped = true;
          continue;
        }
        const leased = await tx.deliveries.lease(id, lease, Math.max(0, Math.min(free, room, hostFree)));
        await tx.webhooks.touch(id, q.now);
        if (host !== null) hostRoom.set(host, hostFree - leased);
        room -= leased;
        claimed += leased;
      }
    }
    return withoutEvents(claimed === 0 ? [] : (await tx.deliveries.leased(q.token)).map((a) => withSecrets(a, q.now)));
  });
}

/** After a rotation the previous secret signs too, beside the new one, until its time is up. */
function withSecrets({ secret, previousSecret, ...attempt }: LeasedAttempt, now: Date): ClaimedAttempt {
  const previousSigns = previousSecret !== null && Date.parse(previousSecret.until) > now.getTime();
  return { ...attempt, secrets: previousSigns ? [secret, previousSecret.secret] : [secret] };
}

/** `recorded`: false when the lease was lost (nothing written); `disabled`: this failure disabled the endpoint. */
export interface AttemptFinished {
  readonly recorded: boolean;
  readonly disabled: boolean;
}

/** The outcome of one attempt, as the dispatcher reports it. */
export interface AttemptResult {
  readonly attempt: ClaimedAttempt;
  readonly token: string;
  readonly succeeded: boolean;
  readonly httpStatus: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly attemptedAt: Date;
  /** When the next attempt is due; null when this was the last one (or it succeeded). */
  readonly retryAt: Date | null;
  /** A failure disables the endpoint when its failures began at or before this instant. */
  readonly disableIfFailingSince: Date;
  /** The attempt was not made because the endpoint's owner key no longer stands (webhook.access.ts, endpointReader): that disables it. */
  readonly ownerGone?: boolean;
  /**
   * The attempt was not made because the endpoint may not be sent this event now (webhook.access.ts
   * `refusal`): recorded failed with its reason, no retry, and not counted as the endpoint failing.
   */
  readonly skipped?: boolean;
}

const NOT_RECORDED: AttemptFinished = { recorded: false, disabled: false };

/**
 * Records an attempt's outcome and what follows from it, in one transaction: a success clears the
 * endpoint's failures; a failure schedules the next attempt (`retryAt`) — unless the endpoint has
 * been failing since `disableIfFailingSince` or longer, which disables it.
 */
export function finishAttempt(storage: Storage, r: AttemptResult): Promise<AttemptFinished> {
  const { attempt: a } = r;
  return write(storage, { now: r.attemptedAt }, async (tx) => {
    // The endpoint first, then its deliveries (the lock order of every delivery workflow).
    const endpoint = await tx.webhooks.lock(a.webhookId);
    if (endpoint === undefined) return withoutEvents(NOT_RECORDED);
    const failingSince = r.succeeded ? null : r.skipped ? endpoint.failingSince : (endpoint.failingSince ?? r.attemptedAt.toISOString());
    const failedTooLong = failingSince !== null && Date.parse(failingSince) <= r.disableIfFailingSince.getTime();
    // Unless a change made another key the owner since the attempt was claimed: then it is a failure like any other.
    const ownerGone = r.ownerGone === true && endpoint.webhook.keyId === a.keyId;
    const disable = endpoint.webhook.enabled && (ownerGone || failedTooLong);
    const recorded = await tx.deliveries.record({
      deliveryId: a.deliveryId,
      token: r.token,
      status: r.succeeded ? 'succeeded' : 'failed',
      httpStatus: r.httpStatus,
      durationMs: r.durationMs,
      error: r.error,
      attemptedAt: r.attemptedAt,
      nextAttemptAt: disable || r.skipped ? null : r.retryAt,
    });
    if (!recorded) return withoutEvents(NOT_RECORDED);
    if (disable) {
      const why = ownerGone
        ? `the API key that owns the endpoint (key ${endpoint.webhook.keyId}) is revoked or expired; enable the endpoint again with another key to resume with new events`
        : `every attempt since ${failingSince} failed (WEBHOOK_DISABLE_AFTER_HOURS); enable the endpoint again to resume with new events`;
      await disableEndpoint(tx, endpoint, failingSince, r.attemptedAt, why);
    } else {
      if (failingSince !== endpoint.failingSince) await tx.webhooks.setFailingSince(a.webhookId, failingSince);
      if (!r.succeeded && !r.skipped && r.retryAt) await tx.deliveries.insertAttempt(a.webhookId, a.eventId, a.attempt + 1, r.retryAt, r.attemptedAt);
    }
    return withoutEvents<AttemptFinished>({ recorded: true, disabled: disable });
  });
}

/**
 * The service disables an endpoint that failed for too long or whose owner key is gone: what was
 * still due is dropped, and the log says why.
 */
async function disableEndpoint(tx: Transaction, endpoint: WebhookState, failingSince: string | null, at: Date, why: string): Promise<void> {
  const { webhook } = endpoint;
  await tx.deliveries.failPending(webhook.id, ENDPOINT_DISABLED);
  await tx.webhooks.update(webhook.id, { ...webhook, host: endpoint.host ?? destination(webhook.url), enabled: false, failingSince }, at);
  await tx.deliveries.logDisabled(webhook.id, why, at);
}

/**
 * An endpoint enabled or disabled by its owner: disabling drops what was still due; enabling
 * again starts afresh, with the events recorded from then on and its failures counted anew.
 * Returns the endpoint's failingSince from now on.
 */
export async function switchEndpoint(tx: Transaction, endpoint: WebhookState, enabled: boolean): Promise<string | null> {
  if (enabled === endpoint.webhook.enabled) return endpoint.failingSince;
  await tx.deliveries.failPending(endpoint.webhook.id, ENDPOINT_DISABLED);
  return enabled ? null : endpoint.failingSince;
}

export function webhookDisabled(webhookId: number): AppError {
  return new AppError('webhook_disabled', `webhook ${webhookId} is disabled; enable it (PATCH {"enabled": true}) before retrying a delivery`);
}

/**
 * Makes the event of delivery `deliveryId` due now, on behalf of `actor`, which must manage the
 * endpoint (assertManages): its pending attempt if it has one (as it is, when it is in flight),
 * else a new attempt continuing the event's attempt numbers. Refused for an unknown entry, a
 * `webhook.disabled` entry, a disabled endpoint, an event no longer kept, and an event the
 * endpoint may not be sent now (its owner key cannot read it, or it no longer subscribes to it).
 */
export function retryDelivery(storage: Storage, webhookId: number, deliveryId: number, actor: KeyManager, ctx: WriteContext<Delivery>): Promise<Delivery> {
  return write(storage, ctx, async (tx) => {
    const endpoint = await tx.webhooks.lock(webhookId);
    assertFound(`webhook ${webhookId}`, endpoint);
    await assertManages(tx, actor, endpoint.webhook);
    const entry = await tx.deliveries.get(webhookId, deliveryId);
    assertFound(`delivery ${deliveryId} of webhook ${webhookId}`, entry);
    if (entry.eventId === null)
      throw new AppError('not_found', `delivery ${deliveryId} of webhook ${webhookId} records the endpoint being disabled; it has no event to send`);
    if (!endpoint.webhook.enabled) throw webhookDisabled(webhookId);
    const sequence = eventSequence({ id: entry.eventId });
    const type = await tx.events.typeOf(sequence);
    if (type === undefined)
      throw new AppError('not_found', `event ${eventId(sequence)} is no longer kept (events are kept EVENT_RETENTION_DAYS); it cannot be sent again`);
    const { keyId } = endpoint.webhook;
    const ownerKey = keyId === null ? undefined : await tx.apiKeys.lock(keyId);
    const why = refusal(endpoint.webhook, keyId === null ? SCOPES : (ownerKey?.scopes ?? []), type);
    if (why !== null) throw new AppError('forbidden', `event ${eventId(sequence)} is not sent to webhook ${webhookId} again: ${why}`);
    const pending = await tx.deliveries.pending(webhookId, sequence);
    if (pending !== undefined) {
      // In flight already: that attempt is the retry.
      if (pending.leaseUntil !== null && Date.parse(pending.leaseUntil) > ctx.now.getTime())
        return onlyActivity(pending.delivery, 'webhook.delivery_retried', `webhook:${webhookId}`);
      return onlyActivity(await tx.deliveries.dueAt(pending.delivery.id, ctx.now), 'webhook.delivery_retried', `webhook:${webhookId}`);
    }
    const last = await tx.deliveries.lastAttempt(webhookId, sequence);
    return onlyActivity(await tx.deliveries.insertAttempt(webhookId, sequence, last + 1, ctx.now, ctx.now), 'webhook.delivery_retried', `webhook:${webhookId}`);
  });
}
