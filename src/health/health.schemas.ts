import { Type, type Static } from 'typebox';
import { BoundedText as text, CalendarDate, Cursor, Id, Limit, Timestamp } from '../schemas.ts';

/** What a health record is of; the due list keeps one next date per animal and kind. */
export const HEALTH_KINDS = ['vaccination', 'deworming', 'exam', 'treatment', 'note'] as const;
export type HealthKind = (typeof HEALTH_KINDS)[number];

export const HEALTH_NAME_MAX = 200;
export const HEALTH_BATCH_MAX = 100;
export const HEALTH_GIVEN_BY_MAX = 200;
export const HEALTH_NOTES_MAX = 2_000;
export const VOID_REASON_MAX = 500;

const kind = Type.Unsafe<HealthKind>({
  type: 'string',
  enum: [...HEALTH_KINDS],
  description: 'What the record is of: a vaccination, a deworming (worming), an examination, a treatment, or a note',
});
const date = CalendarDate('The day the care was given or the observation made; not in the future (later than today everywhere on Earth)');
const name = text(HEALTH_NAME_MAX, 'The vaccine, the product or the examination (for a note: its subject)', 'Nobivac DHPPi');
const batch = text(HEALTH_BATCH_MAX, 'The batch (lot) number of the vaccine or product', 'A123B45');
const givenBy = text(HEALTH_GIVEN_BY_MAX, 'Who gave the care or made the record: the veterinarian or the member of staff', 'Dr. A. Jones, MRCVS');
const notes = text(HEALTH_NOTES_MAX, 'Anything else worth keeping: dose, route, findings, reactions', '1 ml subcutaneous; no reaction');
const nextDue = CalendarDate(
  'When the next care of this kind is due (on or after `date`); the latest record of a kind that is not voided sets the date of the due list',
);
const reason = text(VOID_REASON_MAX, 'Why the record is void: what was wrong with it', 'Recorded against the wrong animal');

/** What a record says, as its writer gives it (NewHealthRecord) and as it is kept. */
const given = { kind, date, name, batch: Type.Optional(batch), givenBy, notes: Type.Optional(notes), nextDue: Type.Optional(nextDue) };

export const HealthVoidInfo = Type.Object(
  { at: Timestamp('When the record was voided'), reason },
  { additionalProperties: false, description: 'Present once the record was voided: it stays in the log, struck through, and no longer counts' },
);

/** The one example of a health record: the schema's, the events' and the Error examples' that quote one. */
export const HEALTH_RECORD_EXAMPLE = {
  id: 1,
  petId: 1,
  kind: 'vaccination',
  date: '2026-11-20',
  name: 'Nobivac DHPPi',
  batch: 'A123B45',
  givenBy: 'Dr. A. Jones, MRCVS',
  nextDue: '2027-11-20',
  recordedAt: '2026-11-22T12:00:00.000Z',
} as const;

/** The example above, voided. */
export const VOIDED_HEALTH_RECORD_EXAMPLE = {
  ...HEALTH_RECORD_EXAMPLE,
  voided: { at: '2026-11-23T09:00:00.000Z', reason: 'Recorded against the wrong animal' },
} as const;

export const HealthRecord = Type.Object(
  {
    id: { ...Id('Identifier of the record'), examples: [1] },
    petId: { ...Id('The animal the record is of'), examples: [1] },
    ...given,
    recordedAt: Timestamp('When the record was written to the log'),
    voided: Type.Optional(HealthVoidInfo),
  },
  {
    $id: 'HealthRecord',
    additionalProperties: false,
    description: "One entry of an animal's health log: append-only, never edited or deleted; a wrong entry is voided with a reason and kept",
    examples: [HEALTH_RECORD_EXAMPLE],
  },
);
export type HealthRecord = Static<typeof HealthRecord>;

export const HealthRecords = Type.Array(Type.Unsafe<HealthRecord>({ $ref: 'HealthRecord#' }), {
  $id: 'HealthRecords',
  description: 'A page of health records',
});

export const NewHealthRecord = Type.Object(given, {
  $id: 'NewHealthRecord',
  additionalProperties: false,
  examples: [{ kind: 'vaccination', date: '2026-11-20', name: 'Nobivac DHPPi', batch: 'A123B45', givenBy: 'Dr. A. Jones, MRCVS', nextDue: '2027-11-20' }],
});
export type NewHealthRecord = Static<typeof NewHealthRecord>;

export const HealthVoid = Type.Object(
  { reason },
  { $id: 'HealthVoid', additionalProperties: false, examples: [{ reason: 'Recorded against the wrong animal' }] },
);
export type HealthVoid = Static<typeof HealthVoid>;

export const HealthRecordParams = Type.Object(
  { petId: Id('The identifier of the animal'), recordId: Id('The identifier of the health record (`id` of a HealthRecord)') },
  { additionalProperties: false },
);
export type HealthRecordParams = Static<typeof HealthRecordParams>;

export const ListHealthQuery = Type.Object({ limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) }, { additionalProperties: false });
export type ListHealthQuery = Static<typeof ListHealthQuery>;

export const HealthDueQuery = Type.Object(
  {
    before: CalendarDate('Lists the care due before this day (not on it): tomorrow, for what is due today or overdue'),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type HealthDueQuery = Static<typeof HealthDueQuery>;
