// The import file readers (src/imports/import.read.ts): RFC 4180 records with the line each starts
// on, whatever the chunks' boundaries; JSON Lines under the API's JSON rules; UTF-8 strictly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvRows, jsonLines, type ReadRow, UnreadableFile, utf8 } from '../../src/imports/import.read.ts';

async function all(rows: AsyncIterable<ReadRow>): Promise<ReadRow[]> {
  const out: ReadRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function texts(parts: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const part of parts) out += part;
  return out;
}

async function* chunks(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

const CSV = 'name,description\r\nRex,"a dog, ""good"""\r\n\r\n"Bo","two\r\nlines"\nMax,\n,\n"",x';

test('reads RFC 4180 records with their first line, whatever the chunks (every split of the text)', async () => {
  const expected = [
    { line: 1, cells: ['name', 'description'] },
    { line: 2, cells: ['Rex', 'a dog, "good"'] },
    { line: 4, cells: ['Bo', 'two\r\nlines'] },
    { line: 6, cells: ['Max', ''] },
    { line: 7, cells: ['', ''] },
    { line: 8, cells: ['', 'x'] },
  ];
  for (const size of [1, 2, 3, 5, 7, CSV.length]) assert.deepEqual(await all(csvRows(chunks(CSV, size))), expected, `chunks of ${size}`);
});

test('refuses a quote inside an unquoted field, text after a closing quote, and a quote left open', async () => {
  await assert.rejects(all(csvRows(chunks('a,b"c\n', 3))), (e: Error) => e instanceof UnreadableFile && /line 1: a double quote/.test(e.message));
  await assert.rejects(all(csvRows(chunks('a\n"b"c\n', 2))), (e: Error) => e instanceof UnreadableFile && /line 2: text after/.test(e.message));
  await assert.rejects(
    all(csvRows(chunks('a\n"b\n\n', 4))),
    (e: Error) => e instanceof UnreadableFile && /line 2: a quoted field is still open/.test(e.message),
  );
});

test('reads JSON Lines: objects by line, empty lines skipped, each line under the API JSON rules', async () => {
  const rows = await all(jsonLines(chunks('{"name":"Rex"}\r\n\n[1]\n{"a":1,"a":2}\n{"name":', 4)));
  const first = rows[0];
  assert.ok('input' in first);
  assert.deepEqual([first.line, first.input.asNew()], [1, { name: 'Rex' }]);
  assert.deepEqual(
    rows.slice(1).map((r) => [r.line, 'problem' in r ? r.problem.code : 'row']),
    [
      [3, 'invalid_json'],
      [4, 'invalid_json'],
      [5, 'invalid_json'],
    ],
  );
});

test('decodes UTF-8 across chunk boundaries, skips a byte-order mark, and refuses bytes that are not UTF-8', async () => {
  const bytes = Buffer.from('\ufeffnäme,ü\n', 'utf8');
  const split = async function* () {
    for (const b of bytes) yield Uint8Array.of(b);
  };
  assert.equal(await texts(utf8(split())), 'näme,ü\n');
  await assert.rejects(
    texts(
      utf8(
        (async function* () {
          yield Uint8Array.of(0x61, 0xff);
        })(),
      ),
    ),
    UnreadableFile,
  );
});
