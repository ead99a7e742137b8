/** Injectable time source: the app asks it for "now", so tests can move past dates (sunset). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
