// The refusals of the hold rules, for the holds' workflows and for the pets' (an animal on hold
// keeps its status and cannot be withdrawn). Pure: no storage, no clock.
import { AppError } from '../errors.ts';
import type { Hold } from './hold.schemas.ts';

export function petOnHold(petId: number, hold: Pick<Hold, 'id' | 'until'>): AppError {
  return new AppError('pet_on_hold', `pet ${petId} is on hold (hold ${hold.id}, until ${hold.until}); cancel or convert that hold first`);
}

export function holdNotLive(hold: Pick<Hold, 'id' | 'state'>, why = `it is ${hold.state}`): AppError {
  return new AppError('hold_not_live', `hold ${hold.id} has ended (${why}); only a live hold can be cancelled or converted`);
}
