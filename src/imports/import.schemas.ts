import { Type, type Static } from 'typebox';
import { ErrorBody, Id, Timestamp } from '../schemas.ts';

export const IMPORT_STATES = ['validating', 'ready', 'applying', 'done', 'failed'] as const;
export type ImportState = (typeof IMPORT_STATES)[number];
export const IMPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
/** What became of a row: `pending` until applied, `invalid` at upload, `refused` when applied. */
export const ROW_OUTCOMES = ['pending', 'invalid', 'created', 'updated', 'unchanged', 'refused'] as const;
export type RowOutcome = (typeof ROW_OUTCOMES)[number];

/** The media types an import is uploaded as, and the format each is read as. */
export const IMPORT_MEDIA_TYPES: Readonly<Record<string, ImportFormat>> = {
  'text/csv': 'csv',
  'application/x-ndjson': 'jsonl',
  'application/jsonl': 'jsonl',
};

/** The most refused rows a job lists in its report (the counts still count every one). */
export const REPORT_MAX = 1_000;

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const ImportRefusal = Type.Object(
  {
    line: Type.Integer({ minimum: 1, description: 'The line of the file the row starts on (the CSV header is line 1)' }),
    column: Type.String({ description: 'The column (CSV) or member (JSON Lines) the error is about; empty when it is about the whole row' }),
    code: ErrorBody.properties.code,
    message: ErrorBody.properties.message,
    status: ErrorBody.properties.status,
  },
  { additionalProperties: false, description: 'A refused row: where, and the error the API answers for the same value' },
);
export type ImportRefusal = Static<typeof ImportRefusal>;

export const ImportJob = Type.Object(
  {
    id: Id('The import'),
    state: Type.Unsafe<ImportState>({
      type: 'string',
      enum: [...IMPORT_STATES],
      description:
        '`validating` while the file is uploaded and read; `ready` once every row is validated (nothing written yet); `applying` after `POST /imports/{id}/apply`, until every valid row is applied: `done`; `failed` when the file could not be read (too large, not UTF-8, not CSV or JSON Lines, a header naming no column) or the upload stopped before its end: nothing of it is applied',
    }),
    format: Type.Unsafe<ImportFormat>({ type: 'string', enum: [...IMPORT_FORMATS], description: 'How the file was read: `csv` or `jsonl` (JSON Lines)' }),
    createCategories: Type.Boolean({ description: 'A category the file names that does not exist is created when applying' }),
    rows: count('Rows read'),
    valid: count('Rows that passed validation'),
    invalid: count('Rows refused at validation; they are not applied'),
    created: count('Animals created so far'),
    updated: count('Animals changed so far'),
    unchanged: count('Rows naming an animal that already had every value given'),
    refused: count('Valid rows refused when applied (the animal changed since: an open order, a microchip taken meanwhile…)'),
    report: Type.Array(ImportRefusal, { description: 'The refused rows, by line: the first 1,000' }),
    failure: Type.Optional(Type.String({ description: 'Why the file could not be read (state `failed`)' })),
    createdAt: Timestamp('When the file was uploaded'),
    updatedAt: Timestamp('When the job last changed state'),
  },
  {
    $id: 'ImportJob',
    additionalProperties: false,
    description: 'An import of animals from a file, and what it did',
    examples: [
      {
        id: 1,
        state: 'ready',
        format: 'csv',
        createCategories: false,
        rows: 3,
        valid: 2,
        invalid: 1,
        created: 0,
        updated: 0,
        unchanged: 0,
        refused: 0,
        report: [
          {
            line: 4,
            column: 'price',
            code: 'validation_failed',
            message: 'body field "price.amount" must be >= 0',
            status: 400,
          },
        ],
        createdAt: '2026-11-28T12:00:00.000Z',
        updatedAt: '2026-11-28T12:00:01.000Z',
      },
    ],
  },
);
export type ImportJob = Static<typeof ImportJob>;

export const ImportIdParams = Type.Object({ importId: Id('The import') }, { additionalProperties: false });
export type ImportIdParams = Static<typeof ImportIdParams>;

export const ImportQuery = Type.Object(
  {
    createCategories: Type.Optional(
      Type.Unsafe<'true' | 'false'>({
        type: 'string',
        enum: ['true', 'false'],
        description:
          '`true`: a category the file names that does not exist is created when applying (the key then needs `categories:write`); default `false`: such rows are refused',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ImportQuery = Static<typeof ImportQuery>;
