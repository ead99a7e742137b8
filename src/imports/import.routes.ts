import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../errors.ts';
import { insufficientScope } from '../http/policies/auth.ts';
import { commonErrors, errorResponse, invalidIds, MALFORMED, prose, UNEXPECTED_BODY, bodyErrors } from '../schemas.ts';
import { IMPORT_MEDIA_TYPES, ImportIdParams, ImportJob, ImportQuery } from './import.schemas.ts';
import { type ImportService, TooLarge } from './import.service.ts';

export interface ImportRoutesOptions {
  readonly imports: ImportService;
  readonly base: string;
  /** IMPORT_MAX_BYTES. */
  readonly maxBytes: number;
}

const mediaTypeOf = (header: string | undefined) => header?.split(';')[0].trim().toLowerCase() ?? '';
const MEDIA_TYPES = Object.keys(IMPORT_MEDIA_TYPES);
const mayReadPets = (request: FastifyRequest) => request.principal?.scopes.includes('pets:read') ?? false;

/**
 * The upload's body parser, for the routes of its scope: the body is handed over as the stream it
 * is (never held whole); any other Content-Type is refused with this operation's 415.
 */
function registerFileParser(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (request, payload, done) => {
    if (IMPORT_MEDIA_TYPES[mediaTypeOf(request.headers['content-type'])] === undefined) {
      done(new AppError('unsupported_media_type', `send the file as the body with Content-Type ${MEDIA_TYPES.join(', ')}`), undefined);
      return;
    }
    done(null, payload);
  });
}

/** The body's bytes, refused with TooLarge past `max` (as declared by Content-Length, or as they arrive). */
async function* bounded(request: FastifyRequest, body: AsyncIterable<Uint8Array>, max: number): AsyncGenerator<Uint8Array> {
  const tooLarge = () => new TooLarge(`the file is larger than IMPORT_MAX_BYTES (${max.toLocaleString('en')} bytes)`);
  if (Number(request.headers['content-length'] ?? 0) > max) throw tooLarge();
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > max) throw tooLarge();
    yield chunk;
  }
}

async function* nothing(): AsyncGenerator<Uint8Array> {}

const job = (description: string) => ({ ...ImportJob, description });

export const importRoutes: FastifyPluginAsyncTypebox<ImportRoutesOptions> = async (app, { imports, base, maxBytes }) => {
  await app.register(async (scope) => {
    registerFileParser(scope);
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/imports',
      {
        config: { scope: 'pets:write' },
        schema: {
          operationId: 'createImport',
          tags: ['Pets'],
          summary: 'Upload animals to import',
          description: `The file is the body, UTF-8, at most ${maxBytes.toLocaleString('en')} bytes (\`IMPORT_MAX_BYTES\`): CSV (\`text/csv\`, RFC 4180, a header row naming the columns an export of the animals has; \`category\` by name) or JSON Lines (\`application/x-ndjson\` or \`application/jsonl\`: one object per line with the members of \`NewPet\`, \`id\`, and the category as \`categoryId\` or by name as \`category\`). Every row is validated as \`POST /pets\` (a new animal) or \`PATCH /pets/{petId}\` (a row whose \`id\`, or microchip number, names a live animal) would validate it; nothing is written to the animals. The answer is the job, \`ready\` (or \`failed\` when the file cannot be read), with each refused row in \`report\` by line and column with the error the API gives. Apply it with \`POST /imports/{importId}/apply\` ([API guide](/docs/api.md), "Imports").`,
          'x-stability': 'experimental',
          consumes: MEDIA_TYPES,
          querystring: ImportQuery,
          body: { content: Object.fromEntries(MEDIA_TYPES.map((type) => [type, { schema: { description: 'The file', contentMediaType: type } }])) },
          response: {
            201: job(
              'The file was read (state `ready`: every row validated, the refused ones in `report`) or could not be (`failed`, with `failure`); `Location` names the job',
            ),
            400: errorResponse`An unknown or invalid query parameter (${'validation_failed'}); ${MALFORMED}`,
            413: errorResponse`The file is larger than \`IMPORT_MAX_BYTES\` (${'payload_too_large'}); the job is left \`failed\``,
            415: errorResponse`\`Content-Type\` is not ${prose(MEDIA_TYPES.join(', '))} (${'unsupported_media_type'})`,
            ...commonErrors,
          },
        },
      },
      async (request, reply) => {
        const format = IMPORT_MEDIA_TYPES[mediaTypeOf(request.headers['content-type'])];
        // Fastify runs no parser for a POST without a body: an empty file.
        const body = (request.body as AsyncIterable<Uint8Array> | undefined) ?? nothing();
        const options = { createCategories: request.query.createCategories === 'true', reveal: mayReadPets(request) };
        try {
          const result = await imports.upload(format, bounded(request, body, maxBytes), options);
          reply.code(201).header('location', `${base}/imports/${result.id}`);
          return result;
        } catch (err) {
          // The rest of the body is not read: the connection cannot carry another request.
          if (err instanceof AppError && err.code === 'payload_too_large') reply.header('connection', 'close');
          throw err;
        }
      },
    );
  });

  app.get(
    '/imports/:importId',
    {
      config: { scope: 'pets:write' },
      schema: {
        operationId: 'getImport',
        tags: ['Pets'],
        summary: 'Get an import',
        description: 'The job: its state, its counts and the refused rows. Poll it while it is `applying` to follow its progress.',
        'x-stability': 'experimental',
        params: ImportIdParams,
        response: {
          200: job('The import'),
          400: errorResponse`${invalidIds(['importId'])} (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`No import with this id (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const result = await imports.get(request.params.importId);
      if (result === undefined) throw notFound(`import ${request.params.importId}`);
      return result;
    },
  );

  app.post(
    '/imports/:importId/apply',
    {
      config: { scope: 'pets:write' },
      schema: {
        operationId: 'applyImport',
        tags: ['Pets'],
        summary: 'Apply an import',
        description:
          'Applies the valid rows of a `ready` import in the background: a row naming a live animal (by `id` or microchip number) changes it as `PATCH /pets/{petId}` would (an animal that already has every value is left unchanged, without an event), the others are created as `POST /pets` would, each with its event. The answer is the job, `applying`; poll `GET /imports/{importId}` until it is `done`. A row refused now (the animal got an open order since, say) is counted in `refused` and listed in `report`. Applying again is safe: an import `done` is left as it is, and one left `applying` by a stopped process resumes where it stopped, never applying a row twice. An import that creates categories (`createCategories=true` naming categories that do not exist) needs `categories:write` too.',
        'x-stability': 'experimental',
        params: ImportIdParams,
        response: {
          200: job('The import was done already: nothing changed'),
          202: job('Applying: the rows are being applied'),
          400: errorResponse`${invalidIds(['importId'])} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No import with this id (${'not_found'})`,
          409: errorResponse`The import is \`validating\` or \`failed\` (${'invalid_transition'})`,
          ...bodyErrors,
          ...commonErrors,
          403: errorResponse`The key lacks \`pets:write\`, or \`categories:write\` for an import that creates categories (${'insufficient_scope'})`,
        },
      },
    },
    async (request, reply) => {
      const { importId } = request.params;
      const current = await imports.get(importId);
      if (current === undefined) throw notFound(`import ${importId}`);
      if (current.state === 'done') return current;
      if (current.createCategories && !request.principal?.scopes.includes('categories:write') && (await imports.newCategories(importId)).length > 0) {
        throw insufficientScope('categories:write');
      }
      return reply.code(202).send(await imports.apply(importId, mayReadPets(request)));
    },
  );
};
